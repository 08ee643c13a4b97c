// float32 <-> float16 / bfloat16 against IEEE 754 round-to-nearest-even, checked exhaustively over
// all 16-bit patterns and over large sweeps of float32 patterns against a reference computed
// independently in double arithmetic (scale to the target's quantum, std::nearbyint, scale back).
#include <QtTest>

#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <vector>

#include "tensor/float_convert.h"

using namespace ampstudio;

namespace {

struct Format {
    int exponentBits;
    int mantissaBits;
    int bias() const { return (1 << (exponentBits - 1)) - 1; }
    int minExponent() const { return 1 - bias(); }
    int maxExponent() const { return bias(); }
};
constexpr Format kHalf{5, 10};
constexpr Format kBfloat16{8, 7};

bool isNan16(Format f, uint16_t bits) {
    const uint16_t expMask = static_cast<uint16_t>(((1u << f.exponentBits) - 1) << f.mantissaBits);
    const uint16_t manMask = static_cast<uint16_t>((1u << f.mantissaBits) - 1);
    return (bits & expMask) == expMask && (bits & manMask) != 0;
}

// The value of a 16-bit pattern from the format's definition (NaN patterns excluded by callers).
double referenceValue(Format f, uint16_t bits) {
    const bool negative = (bits & 0x8000u) != 0;
    const uint32_t exponent = (bits >> f.mantissaBits) & ((1u << f.exponentBits) - 1);
    const uint32_t mantissa = bits & ((1u << f.mantissaBits) - 1);
    double v;
    if (exponent == (1u << f.exponentBits) - 1) {
        v = INFINITY;
    } else if (exponent == 0) {
        v = std::ldexp(static_cast<double>(mantissa), f.minExponent() - f.mantissaBits);
    } else {
        v = std::ldexp(1.0 + std::ldexp(static_cast<double>(mantissa), -f.mantissaBits),
                       static_cast<int>(exponent) - f.bias());
    }
    return negative ? -v : v;
}

// float32 (not NaN) rounded to the format, to nearest with ties to even, as a double (+-inf on
// overflow). Rounding happens on a double holding the float exactly, scaled by a power of two.
double referenceRound(Format f, float x) {
    const double a = std::fabs(static_cast<double>(x));
    if (std::isinf(a)) {
        return x;
    }
    // Largest finite value plus half its ulp: from there on (ties included, as the largest value's
    // mantissa is odd) the result is infinity.
    const double maxFinite = std::ldexp(2.0 - std::ldexp(1.0, -f.mantissaBits), f.maxExponent());
    const double overflow = maxFinite + std::ldexp(1.0, f.maxExponent() - f.mantissaBits - 1);
    double r;
    if (a >= overflow) {
        r = INFINITY;
    } else if (a == 0.0) {
        r = 0.0;
    } else {
        int e;
        std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1): leading bit at 2^(e-1)
        const int quantum = std::max(e - 1, f.minExponent()) - f.mantissaBits;
        r = std::ldexp(std::nearbyint(std::ldexp(a, -quantum)), quantum);
    }
    return std::signbit(x) ? -r : r;
}

uint16_t convert(Format f, float x) {
    return f.exponentBits == 5 ? floatToHalfBits(x) : floatToBfloat16Bits(x);
}
float expand(Format f, uint16_t b) {
    return f.exponentBits == 5 ? halfBitsToFloat(b) : bfloat16BitsToFloat(b);
}

// Checks every pattern start, start+step, ... up to `end` (exclusive); returns the first mismatch.
QString sweep(Format f, uint64_t start, uint64_t end, uint64_t step) {
    for (uint64_t p = start; p < end; p += step) {
        const float x = std::bit_cast<float>(static_cast<uint32_t>(p));
        const uint16_t got = convert(f, x);
        if (std::isnan(x)) {
            if (!isNan16(f, got)) {
                return QString("NaN 0x%1 became 0x%2").arg(p, 8, 16, QChar('0')).arg(got, 4, 16, QChar('0'));
            }
            continue;
        }
        const double want = referenceRound(f, x);
        const double have = referenceValue(f, got);
        if (isNan16(f, got) || have != want || std::signbit(have) != std::signbit(want)) {
            return QString("0x%1 (%2) -> 0x%3, want %4")
                .arg(p, 8, 16, QChar('0'))
                .arg(double(x), 0, 'g', 17)
                .arg(got, 4, 16, QChar('0'))
                .arg(want, 0, 'g', 17);
        }
    }
    return {};
}

Format formatNamed(const QString& name) {
    return name == "float16" ? kHalf : kBfloat16;
}

}  // namespace

class TestFloatConvert : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QCOMPARE(std::fegetround(), FE_TONEAREST); }

    void knownValues_data() {
        QTest::addColumn<QString>("format");
        QTest::addColumn<quint32>("input");  // float32 bits
        QTest::addColumn<quint32>("expected");
        auto bits = [](float f) { return std::bit_cast<quint32>(f); };
        QTest::newRow("f16 1.0") << "float16" << bits(1.0f) << 0x3C00u;
        QTest::newRow("f16 0.1") << "float16" << bits(0.1f) << 0x2E66u;
        QTest::newRow("f16 65504 is the largest") << "float16" << bits(65504.0f) << 0x7BFFu;
        QTest::newRow("f16 65519 rounds down to 65504") << "float16" << bits(65519.0f) << 0x7BFFu;
        QTest::newRow("f16 65520 is a tie, goes to even = inf") << "float16" << bits(65520.0f) << 0x7C00u;
        QTest::newRow("f16 70000 overflows") << "float16" << bits(70000.0f) << 0x7C00u;
        QTest::newRow("f16 -70000 overflows") << "float16" << bits(-70000.0f) << 0xFC00u;
        QTest::newRow("f16 1e-8 underflows to 0") << "float16" << bits(1e-8f) << 0x0000u;
        QTest::newRow("f16 -1e-8 underflows to -0") << "float16" << bits(-1e-8f) << 0x8000u;
        QTest::newRow("f16 2^-24 smallest subnormal") << "float16" << bits(std::ldexp(1.0f, -24)) << 0x0001u;
        QTest::newRow("f16 2^-25 tie to even 0") << "float16" << bits(std::ldexp(1.0f, -25)) << 0x0000u;
        QTest::newRow("f16 3*2^-25 tie to even 2") << "float16" << bits(std::ldexp(3.0f, -25)) << 0x0002u;
        QTest::newRow("f16 largest subnormal") << "float16" << bits(std::ldexp(1023.0f, -24)) << 0x03FFu;
        QTest::newRow("f16 2^-14 smallest normal") << "float16" << bits(std::ldexp(1.0f, -14)) << 0x0400u;
        QTest::newRow("f16 1+2^-11 tie to even 1")
            << "float16" << bits(1.0f + std::ldexp(1.0f, -11)) << 0x3C00u;
        QTest::newRow("f16 1+3*2^-11 tie to even up")
            << "float16" << bits(1.0f + std::ldexp(3.0f, -11)) << 0x3C02u;
        QTest::newRow("f16 -0") << "float16" << 0x80000000u << 0x8000u;
        QTest::newRow("f16 inf") << "float16" << 0x7F800000u << 0x7C00u;
        QTest::newRow("f16 -inf") << "float16" << 0xFF800000u << 0xFC00u;
        QTest::newRow("bf16 1.0") << "bfloat16" << bits(1.0f) << 0x3F80u;
        QTest::newRow("bf16 pi") << "bfloat16" << 0x40490FDBu << 0x4049u;
        QTest::newRow("bf16 1+2^-8 tie to even down") << "bfloat16" << 0x3F808000u << 0x3F80u;
        QTest::newRow("bf16 1+3*2^-8 tie to even up") << "bfloat16" << 0x3F818000u << 0x3F82u;
        QTest::newRow("bf16 just above a tie rounds up") << "bfloat16" << 0x3F808001u << 0x3F81u;
        QTest::newRow("bf16 largest finite") << "bfloat16" << 0x7F7F0000u << 0x7F7Fu;
        QTest::newRow("bf16 below the overflow tie") << "bfloat16" << 0x7F7F7FFFu << 0x7F7Fu;
        QTest::newRow("bf16 overflow tie goes to inf") << "bfloat16" << 0x7F7F8000u << 0x7F80u;
        QTest::newRow("bf16 FLT_MAX overflows") << "bfloat16" << 0x7F7FFFFFu << 0x7F80u;
        QTest::newRow("bf16 smallest f32 subnormal to 0") << "bfloat16" << 0x00000001u << 0x0000u;
        QTest::newRow("bf16 subnormal tie to even 0") << "bfloat16" << 0x00008000u << 0x0000u;
        QTest::newRow("bf16 subnormal tie to even 2") << "bfloat16" << 0x00018000u << 0x0002u;
        QTest::newRow("bf16 subnormal above tie") << "bfloat16" << 0x00008001u << 0x0001u;
        QTest::newRow("bf16 largest subnormal rounds to normal") << "bfloat16" << 0x007FFFFFu << 0x0080u;
        QTest::newRow("bf16 -0") << "bfloat16" << 0x80000000u << 0x8000u;
        QTest::newRow("bf16 inf") << "bfloat16" << 0x7F800000u << 0x7F80u;
        QTest::newRow("bf16 -inf") << "bfloat16" << 0xFF800000u << 0xFF80u;
    }
    void knownValues() {
        QFETCH(QString, format);
        QFETCH(quint32, input);
        QFETCH(quint32, expected);
        const Format f = formatNamed(format);
        QCOMPARE(quint32(convert(f, std::bit_cast<float>(input))), expected);
    }

    void nanStaysNan_data() {
        QTest::addColumn<QString>("format");
        QTest::addColumn<quint32>("input");
        for (const char* format : {"float16", "bfloat16"}) {
            QTest::addRow("%s quiet NaN", format) << format << 0x7FC00000u;
            QTest::addRow("%s negative quiet NaN", format) << format << 0xFFC00000u;
            // Payload only in the low bits: truncation alone would give infinity.
            QTest::addRow("%s signalling NaN, low payload", format) << format << 0x7F800001u;
            QTest::addRow("%s negative signalling NaN", format) << format << 0xFF800001u;
            QTest::addRow("%s NaN, all payload bits", format) << format << 0x7FFFFFFFu;
        }
    }
    void nanStaysNan() {
        QFETCH(QString, format);
        QFETCH(quint32, input);
        const Format f = formatNamed(format);
        const uint16_t got = convert(f, std::bit_cast<float>(input));
        QVERIFY2(isNan16(f, got), qPrintable(QString::number(got, 16)));
        QCOMPARE(bool(got & 0x8000u), bool(input & 0x80000000u));
        QVERIFY(std::isnan(expand(f, got)));
    }

    // Every 16-bit pattern: expanding matches the format's definition, and float32 -> 16 bits gives
    // the pattern back (NaNs stay NaN).
    void all16BitPatternsRoundTrip_data() {
        QTest::addColumn<QString>("format");
        QTest::newRow("float16") << "float16";
        QTest::newRow("bfloat16") << "bfloat16";
    }
    void all16BitPatternsRoundTrip() {
        QFETCH(QString, format);
        const Format f = formatNamed(format);
        for (uint32_t b = 0; b <= 0xFFFF; ++b) {
            const uint16_t bits = static_cast<uint16_t>(b);
            const float x = expand(f, bits);
            if (isNan16(f, bits)) {
                QVERIFY2(std::isnan(x), qPrintable(QString::number(b, 16)));
                QVERIFY2(isNan16(f, convert(f, x)), qPrintable(QString::number(b, 16)));
                continue;
            }
            const double want = referenceValue(f, bits);
            QVERIFY2(static_cast<double>(x) == want && std::signbit(x) == std::signbit(want),
                     qPrintable(QString::number(b, 16)));
            QCOMPARE(quint32(convert(f, x)), quint32(bits));
        }
    }

    void float32SweepMatchesReference_data() {
        QTest::addColumn<QString>("format");
        QTest::addColumn<quint64>("start");
        QTest::addColumn<quint64>("end");
        QTest::addColumn<quint64>("step");
        const quint64 all = quint64(1) << 32;
        for (const char* format : {"float16", "bfloat16"}) {
            QTest::addRow("%s every 509th pattern", format) << format << quint64(0) << all << quint64(509);
            QTest::addRow("%s every 65537th pattern + 7", format)
                << format << quint64(7) << all << quint64(65537);
        }
        // float16: its subnormal range and the overflow threshold, densely.
        QTest::newRow("float16 subnormal and small normal range")
            << "float16" << quint64(0x33000000) << quint64(0x38900000) << quint64(13);
        QTest::newRow("float16 around 65504..65536, every pattern")
            << "float16" << quint64(0x477FC000) << quint64(0x47810000) << quint64(1);
        // bfloat16: float32 subnormals, and every pattern near the overflow threshold.
        QTest::newRow("bfloat16 float32 subnormals")
            << "bfloat16" << quint64(0) << quint64(0x00800000) << quint64(3);
        QTest::newRow("bfloat16 near FLT_MAX, every pattern")
            << "bfloat16" << quint64(0x7F7E0000) << quint64(0x7F800001) << quint64(1);
    }
    void float32SweepMatchesReference() {
        QFETCH(QString, format);
        QFETCH(quint64, start);
        QFETCH(quint64, end);
        QFETCH(quint64, step);
        const QString mismatch = sweep(formatNamed(format), start, end, step);
        QVERIFY2(mismatch.isEmpty(), qPrintable(mismatch));
    }

    // Every midpoint between two neighbouring finite 16-bit values (the ties), and the float32
    // values just below and above it, for both signs.
    void allTiesMatchReference_data() { all16BitPatternsRoundTrip_data(); }
    void allTiesMatchReference() {
        QFETCH(QString, format);
        const Format f = formatNamed(format);
        const uint16_t largestFinite = f.exponentBits == 5 ? 0x7BFF : 0x7F7F;
        for (uint32_t b = 0; b <= largestFinite; ++b) {
            const double lo = referenceValue(f, static_cast<uint16_t>(b));
            const double hi = b == largestFinite ? std::ldexp(1.0, f.maxExponent() + 1)
                                                 : referenceValue(f, static_cast<uint16_t>(b + 1));
            const float mid = static_cast<float>((lo + hi) / 2);
            QVERIFY(static_cast<double>(mid) == (lo + hi) / 2);  // ties are float32 values
            for (float x : {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, INFINITY)}) {
                for (float signedX : {x, -x}) {
                    const QString mismatch = sweep(f, std::bit_cast<uint32_t>(signedX),
                                                   quint64(std::bit_cast<uint32_t>(signedX)) + 1, 1);
                    QVERIFY2(mismatch.isEmpty(), qPrintable(mismatch));
                }
            }
        }
    }

    void bulkMatchesScalar() {
        std::vector<float> in;
        for (uint32_t p = 0; p < 0xFFFFFFFFu - 7919; p += 7919) {
            in.push_back(std::bit_cast<float>(p));
        }
        std::vector<uint16_t> half(in.size());
        std::vector<uint16_t> bf(in.size());
        floatsToHalf(in, half);
        floatsToBfloat16(in, bf);
        std::vector<float> backHalf(in.size());
        std::vector<float> backBf(in.size());
        halfToFloats(half, backHalf);
        bfloat16ToFloats(bf, backBf);
        for (std::size_t i = 0; i < in.size(); ++i) {
            QCOMPARE(half[i], floatToHalfBits(in[i]));
            QCOMPARE(bf[i], floatToBfloat16Bits(in[i]));
            QCOMPARE(std::bit_cast<uint32_t>(backHalf[i]), std::bit_cast<uint32_t>(halfBitsToFloat(half[i])));
            QCOMPARE(std::bit_cast<uint32_t>(backBf[i]), std::bit_cast<uint32_t>(bfloat16BitsToFloat(bf[i])));
        }
        // Every half pattern through the bulk path (F16C where the CPU has it) and back.
        std::vector<uint16_t> all(65536);
        for (uint32_t p = 0; p < 65536; ++p) {
            all[p] = static_cast<uint16_t>(p);
        }
        std::vector<float> widened(all.size());
        halfToFloats(all, widened);
        std::vector<uint16_t> narrowed(all.size());
        floatsToHalf(widened, narrowed);
        for (uint32_t p = 0; p < 65536; ++p) {
            QCOMPARE(std::bit_cast<uint32_t>(widened[p]), std::bit_cast<uint32_t>(halfBitsToFloat(all[p])));
            QCOMPARE(narrowed[p], floatToHalfBits(widened[p]));
        }
        // Every bfloat16 pattern widened in bulk, and every bfloat16 tie (and its neighbours) narrowed
        // in bulk (AVX2 where the CPU has it), against the scalar conversion.
        std::vector<float> ties;
        for (uint32_t p = 0; p < 65536; ++p) {
            const uint32_t tie = (p << 16) | 0x8000u;
            for (uint32_t bits : {tie - 1, tie, tie + 1}) {
                ties.push_back(std::bit_cast<float>(bits));
            }
        }
        std::vector<float> bfWidened(all.size());
        bfloat16ToFloats(all, bfWidened);
        std::vector<uint16_t> tiesNarrowed(ties.size());
        floatsToBfloat16(ties, tiesNarrowed);
        for (uint32_t p = 0; p < 65536; ++p) {
            QCOMPARE(std::bit_cast<uint32_t>(bfWidened[p]), std::bit_cast<uint32_t>(bfloat16BitsToFloat(all[p])));
        }
        for (std::size_t i = 0; i < ties.size(); ++i) {
            QCOMPARE(tiesNarrowed[i], floatToBfloat16Bits(ties[i]));
        }
    }

    void bulkRejectsLengthMismatch() {
        std::vector<float> in(4);
        std::vector<uint16_t> out(3);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, floatsToHalf(in, out));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, floatsToBfloat16(in, out));
        std::vector<float> back(5);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, halfToFloats(out, back));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, bfloat16ToFloats(out, back));
    }
};

QTEST_GUILESS_MAIN(TestFloatConvert)
#include "test_float_convert.moc"
