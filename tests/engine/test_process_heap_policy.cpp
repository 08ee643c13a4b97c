// The heap policy (platform/process_heap_policy.h) keeps freed large blocks for reuse: a block freed and
// allocated again must not be faulted in from the kernel a second time.
#include <sys/resource.h>

#include <QTest>
#include <cstring>
#include <memory>

#include "platform/process_heap_policy.h"

using namespace ampstudio;

namespace {

long minorFaults() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_minflt;
}

// Allocates and touches `bytes`, returning the page faults that took.
long faultsToUse(std::size_t bytes) {
    const long before = minorFaults();
    {
        std::unique_ptr<char[]> block(new char[bytes]);
        std::memset(block.get(), 1, bytes);
        // A volatile read keeps the compiler from dropping the block and its writes.
        [[maybe_unused]] const char last = static_cast<volatile char*>(block.get())[bytes - 1];
    }
    return minorFaults() - before;
}

}  // namespace

class TestHeapPolicy : public QObject {
    Q_OBJECT

private slots:
    void freedLargeBlocksAreReusedWithoutFaults() {
        if (!applyLargeModelHeapPolicy().applied) {
            QSKIP("the heap policy needs glibc's allocator (not a sanitizer's)");
        }
        QVERIFY(applyLargeModelHeapPolicy().applied);  // idempotent
        constexpr std::size_t kBytes = 256u << 20;     // over glibc's 32 MiB mmap limit: 65536 pages
        const long first = faultsToUse(kBytes);
        QVERIFY2(first > 10000, qPrintable(QString("a fresh block faults in: %1 faults").arg(first)));
        for (int round = 0; round < 3; ++round) {
            const long again = faultsToUse(kBytes);
            // With glibc's default the block is unmapped on free and all 65536 pages fault again.
            QVERIFY2(again < 1000, qPrintable(QString("round %1: %2 page faults").arg(round).arg(again)));
        }
    }
};

QTEST_GUILESS_MAIN(TestHeapPolicy)
#include "test_process_heap_policy.moc"
