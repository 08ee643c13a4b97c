#include "train/loss_scaler.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <system_error>

namespace ampstudio {
namespace {

using lossscale::kMaxFloat;

std::string presetList() {
    std::string out;
    for (const auto& name : LossScaler::presetNames()) {
        out += (out.empty() ? "" : ", ") + name;
    }
    return out;
}

[[noreturn]] void badPreset(std::string_view text, const std::string& why) {
    throw std::invalid_argument("unknown loss-scaler preset '" + std::string(text) + "'" +
                                (why.empty() ? "" : " (" + why + ")") + "; the presets are " + presetList());
}

void checkInitScale(double scale) {
    if (!std::isfinite(scale) || scale <= 0.0 || scale > kMaxFloat) {
        throw std::invalid_argument("loss scale " + std::to_string(scale) +
                                    " is not a finite positive number within the float range");
    }
}

void checkSettings(const LossScalerSettings& s) {
    checkInitScale(s.initScale);
    if (!std::isfinite(s.growthFactor) || s.growthFactor < 1.0) {
        throw std::invalid_argument("loss-scale growth factor must be finite and at least 1");
    }
    if (!(s.backoffFactor > 0.0 && s.backoffFactor <= 1.0)) {
        throw std::invalid_argument("loss-scale backoff factor must be in (0, 1]");
    }
    if (s.growthInterval < 1) {
        throw std::invalid_argument("loss-scale growth interval must be at least 1");
    }
    if (s.hysteresis < 1) {
        throw std::invalid_argument("loss-scale hysteresis must be at least 1");
    }
    if (!(s.maxScale >= 0.0) || !(s.minScale >= 0.0) || std::isinf(s.minScale) ||
        (s.maxScale > 0.0 && s.minScale > s.maxScale)) {
        throw std::invalid_argument("loss-scale bounds must satisfy 0 <= min <= max");
    }
}

}  // namespace

const std::vector<std::string>& LossScaler::presetNames() {
    static const std::vector<std::string> names = {"pytorch",   "apex",     "fastai",
                                                   "deepspeed", "static:N", "off"};
    return names;
}

LossScaler LossScaler::fromPreset(std::string_view preset) {
    LossScalerSettings s;
    if (preset == "pytorch") {
        // torch.amp.GradScaler(init_scale=2.**16, growth_factor=2.0, backoff_factor=0.5,
        // growth_interval=2000); the update is `_amp_update_scale_`.
    } else if (preset == "apex") {
        // apex/amp/scaler.py LossScaler(init_scale=2.**16, scale_factor=2., scale_window=2000,
        // min_loss_scale=None, max_loss_scale=2.**24): update_scale() halves and zeroes _unskipped on
        // overflow, else _unskipped += 1 and at _scale_seq_len doubles, capped: min(max, scale * 2).
        s.maxScale = 16777216.0;  // 2^24
    } else if (preset == "fastai") {
        // fastai/callback/fp16.py NonNativeMixedPrecision(loss_scale=2**24, div_factor=2.,
        // scale_wait=500): on overflow `loss_scale /= div_factor` and the batch is cancelled, but
        // `count` is left alone; after a clean step `count += 1; if count == scale_wait: count = 0;
        // loss_scale *= div_factor`. So clean steps count towards growth across overflows.
        s.initScale = 16777216.0;  // 2^24
        s.growthInterval = 500;
        s.resetCounterOnOverflow = false;
    } else if (preset == "deepspeed") {
        // deepspeed/runtime/fp16/loss_scaler.py DynamicLossScaler with the config defaults of
        // deepspeed/runtime/constants.py: initial_scale_power 16, loss_scale_window 1000,
        // hysteresis 2 (delayed_shift), consecutive_hysteresis False, min_loss_scale 1.
        // update_scale(): an overflow with cur_hysteresis > 1 only decrements it; otherwise the scale
        // becomes max(scale / 2, min_scale). Every overflow restarts the window (last_overflow_iter).
        // The budget is restored when the scale grows (or after any clean step when consecutive).
        s.growthInterval = 1000;
        s.hysteresis = 2;
        s.minScale = 1.0;
    } else if (preset == "off") {
        s.initScale = 1.0;
        s.dynamic = false;
    } else if (preset.starts_with("static:")) {
        const std::string_view number = preset.substr(7);
        double value = 0.0;
        const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
        if (number.empty() || ec != std::errc() || end != number.data() + number.size()) {
            badPreset(preset, "static:N needs a number, e.g. static:128");
        }
        if (!std::isfinite(value) || value <= 0.0 || value > kMaxFloat) {
            badPreset(preset, "the static scale must be positive and within the float range");
        }
        s.initScale = value;
        s.dynamic = false;
    } else {
        badPreset(preset, "");
    }
    LossScaler scaler(s);
    scaler.m_preset = std::string(preset);
    return scaler;
}

LossScaler::LossScaler(const LossScalerSettings& settings) : m_settings(settings) {
    checkSettings(m_settings);
    reset();
}

void LossScaler::setInitScale(double scale) {
    checkInitScale(scale);
    m_settings.initScale = scale;
    reset();
}

void LossScaler::setGrowthInterval(int64_t interval) {
    if (interval < 1) {
        throw std::invalid_argument("loss-scale growth interval must be at least 1");
    }
    m_settings.growthInterval = interval;
    reset();
}

void LossScaler::reset() { m_state = lossscale::initialState(m_settings); }

bool LossScaler::update(bool overflow) { return lossscale::advance(m_settings, m_state, overflow); }

}  // namespace ampstudio
