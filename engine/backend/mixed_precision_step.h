#pragma once
// The parts of the mixed-precision training step that a backend computes where the gradients are, so
// that a step needs no host synchronisation (DESIGN.md §5): the dynamic loss-scale rule, its state,
// and the record one step leaves for the host to read later. Plain structs and one inline function,
// C++17 and usable in device code (nvcc includes this file too): the CPU backend, the CUDA kernels
// and the host-side LossScaler (train/loss_scaler.h) all run this one rule, so they cannot drift.
#include <cmath>
#include <cstdint>

#include "backend/host_device.h"

namespace ampstudio {

// How a dynamic loss scale moves (train/loss_scaler.h names the presets that fill it in).
struct LossScalerSettings {
    double initScale = 65536.0;          // 2^16
    double growthFactor = 2.0;           // >= 1
    double backoffFactor = 0.5;          // in (0, 1]
    int64_t growthInterval = 2000;       // clean steps before the scale grows; >= 1
    double maxScale = 0.0;               // 0: no ceiling (but never beyond the largest finite float)
    double minScale = 0.0;               // 0: no floor (but never below the smallest normal float)
    bool resetCounterOnOverflow = true;  // false: fastai's counter, which overflows do not reset
    int hysteresis = 1;                  // overflows needed before a back-off (DeepSpeed's delayed_shift)
    bool consecutiveHysteresis = false;  // DeepSpeed: a clean step restores the hysteresis budget
    bool dynamic = true;                 // false: the scale never changes (static:N, off)
};

// Where the scale stands.
struct LossScaleState {
    double scale = 65536.0;  // always a float value (see roundToFloat)
    int64_t counter = 0;     // clean steps counted towards the next growth
    int32_t hysteresisLeft = 1;
    int64_t steps = 0;
    int64_t skipped = 0;
};

namespace lossscale {

constexpr double kMaxFloat = 3.4028234663852886e+38;        // FLT_MAX
constexpr double kMinNormalFloat = 1.1754943508222875e-38;  // FLT_MIN

// PyTorch keeps the scale in an f32 tensor; rounding ours the same way keeps traces identical for
// scales that are not powers of two, and the scale is multiplied into an f32 loss anyway.
AMS_HOST_DEVICE inline double roundToFloat(double v) { return static_cast<double>(static_cast<float>(v)); }

AMS_HOST_DEVICE inline LossScaleState initialState(const LossScalerSettings& s) {
    LossScaleState state;
    state.scale = roundToFloat(s.initScale);
    state.counter = 0;
    state.hysteresisLeft = s.hysteresis;
    state.steps = 0;
    state.skipped = 0;
    return state;
}

// Records one step's outcome and moves the scale; returns true when the step must be skipped, which
// is exactly when it overflowed. One rule, PyTorch's (`_amp_update_scale_` in
// aten/src/ATen/native/cuda/AmpKernels.cu):
//   overflow: scale *= backoff, counter = 0
//   clean:    counter += 1; if counter == interval: scale *= growth (unless that is not finite), counter = 0
// with the knobs the other libraries add (loss_scaler.h).
AMS_HOST_DEVICE inline bool advance(const LossScalerSettings& s, LossScaleState& state, bool overflow) {
    ++state.steps;
    if (overflow) {
        ++state.skipped;
    }
    if (!s.dynamic) {
        return overflow;
    }
    if (overflow) {
        if (s.hysteresis == 1 || state.hysteresisLeft <= 1) {
            // Never to zero: a zero (or subnormal) scale could never grow back.
            const double floor = s.minScale > kMinNormalFloat ? s.minScale : kMinNormalFloat;
            const double reduced = state.scale * s.backoffFactor;
            state.scale = roundToFloat(reduced > floor ? reduced : floor);
        } else {
            --state.hysteresisLeft;
        }
        if (s.resetCounterOnOverflow) {
            state.counter = 0;
        }
        return true;
    }
    if (s.consecutiveHysteresis) {
        state.hysteresisLeft = s.hysteresis;
    }
    if (++state.counter >= s.growthInterval) {
        double grown = state.scale * s.growthFactor;
        if (s.maxScale > 0.0 && grown > s.maxScale) {
            grown = s.maxScale;
        }
        // `_amp_update_scale_`: "Do not grow the scale past fp32 bounds to inf."
        // Our bound is the largest finite float, the type the scale is applied in.
        if (grown <= kMaxFloat) {
            state.scale = roundToFloat(grown);
        }
        state.counter = 0;
        state.hysteresisLeft = s.hysteresis;
    }
    return false;
}

}  // namespace lossscale

// What one training step leaves in backend memory for the host to read when it likes (the only
// per-step read): written by Backend::unscaleGradients, read by the optimizer steps that follow it.
struct StepRecord {
    LossScaleState scaler;      // after this step's update
    double usedScale = 1.0;     // the scale this step's loss gradient was multiplied by
    double sumOfSquares = 0.0;  // of the unscaled gradients; inf or NaN when any of them was
    float clipFactor = 1.0f;    // the optimizer multiplies the gradients by this (clipping by norm)
    int32_t skipped = 0;        // inf/NaN found: the optimizer steps change nothing
    int64_t appliedSteps = 0;   // optimizer steps taken so far (Adam's bias-correction count)
};

// How unscaleGradients finishes the gradients of one step.
struct GradientPassSettings {
    double divisor = 1.0;   // besides the loss scale (the batch size: the loss heads do not average)
    double clipNorm = 0.0;  // clip to this global norm; 0: no clipping
    LossScalerSettings scaler;
};

// After the sums: the record's verdict, the clipping factor and the next scale, as both backends
// compute them (in double, the factor rounded once).
AMS_HOST_DEVICE inline void finishGradientPass(const GradientPassSettings& settings, double sumOfSquares,
                                               StepRecord& record) {
    record.usedScale = record.scaler.scale;
    record.sumOfSquares = sumOfSquares;
    // inf * 0 is NaN and inf^2 is inf, so one finiteness test of the sum covers every element.
    const bool finite = sumOfSquares - sumOfSquares == 0.0;
    record.skipped = lossscale::advance(settings.scaler, record.scaler, !finite) ? 1 : 0;
    record.clipFactor = 1.0f;
    if (!record.skipped) {
        ++record.appliedSteps;
        if (settings.clipNorm > 0.0) {
            const double norm = sqrt(sumOfSquares);
            if (norm > settings.clipNorm) {
                record.clipFactor = static_cast<float>(settings.clipNorm / norm);
            }
        }
    }
}

}  // namespace ampstudio
