#pragma once
// The dynamic loss scale of mixed-precision training: the loss is multiplied by scale() before the
// backward pass so that small f16 gradients do not flush to zero; after the backward pass the trainer
// unscales, checks for inf/NaN and calls update(overflow). An overflow step is skipped (weights and
// optimizer state untouched) and the scale backs off; a run of clean steps grows it again.
//
// The rule (backend/mixed_precision_step.h, where the backends run it on the device) is PyTorch's
// (`_amp_update_scale_` in aten/src/ATen/native/cuda/AmpKernels.cu):
//   overflow: scale *= backoff, counter = 0
//   clean:    counter += 1; if counter == interval: scale *= growth (unless that is not finite), counter = 0
// with the knobs the other libraries add, so that each named preset reproduces its library exactly:
//   - a ceiling and a floor (Apex's max_loss_scale 2^24, DeepSpeed's min_scale 1);
//   - a counter kept across overflows (fastai's NonNativeMixedPrecision never resets it there);
//   - hysteresis (DeepSpeed's delayed_shift: that many overflows before the scale backs off).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "backend/mixed_precision_step.h"

namespace ampstudio {

class LossScaler {
public:
    // The presets, as written on the command line and in the GUI:
    //   pytorch    torch.amp.GradScaler defaults: 2^16, x2, x0.5, interval 2000
    //   apex       apex.amp LossScaler: 2^16, x2, /2, window 2000, max 2^24
    //   fastai     fastai NonNativeMixedPrecision: 2^24, x2, /2, wait 500, counter kept across overflows
    //   deepspeed  DeepSpeed DynamicLossScaler with its config defaults: 2^16, x2, /2, window 1000,
    //              hysteresis 2, min scale 1
    //   static:N   scale N, never changes
    //   off        scale 1, never changes
    // Every preset, static and off included, skips a step whose gradients overflow: applying inf/NaN
    // to the weights would destroy them, and a skipped step is visible in the metrics. (Apex and
    // fastai with a static scale do not check; we do.)
    // Throws std::invalid_argument naming the bad text and listing the presets.
    static LossScaler fromPreset(std::string_view preset);
    static const std::vector<std::string>& presetNames();  // "pytorch", "apex", ..., "static:N", "off"

    LossScaler() : LossScaler(LossScalerSettings{}) {}
    explicit LossScaler(const LossScalerSettings& settings);  // throws std::invalid_argument

    // Overrides (--init-scale, --growth-interval); they restart the scaler from the new initial state.
    void setInitScale(double scale);           // finite, > 0 and at most the largest finite float
    void setGrowthInterval(int64_t interval);  // >= 1

    const LossScalerSettings& settings() const { return m_settings; }
    const std::string& presetName() const { return m_preset; }  // "custom" when built from settings

    double scale() const { return m_state.scale; }
    // Records one step's outcome and updates the scale. Returns true when the step must be skipped,
    // which is exactly when overflow is true.
    bool update(bool overflow);

    int64_t steps() const { return m_state.steps; }
    int64_t skippedSteps() const { return m_state.skipped; }
    int64_t growthCounter() const { return m_state.counter; }  // clean steps counted towards the next growth
    int hysteresisLeft() const { return m_state.hysteresisLeft; }
    // A scale below 1 shrinks gradients instead of protecting them: training is probably diverging.
    // The trainer reports it as a warning in the metrics.
    bool scaleBelowOne() const { return m_state.scale < 1.0; }

    // The whole state, for a scaler that runs on a device: the trainer mirrors the device's state
    // here after each step it reads back.
    const LossScaleState& state() const { return m_state; }
    void setState(const LossScaleState& state) { m_state = state; }

    // Back to the initial state (scale, counters, skipped steps).
    void reset();

private:
    LossScalerSettings m_settings;
    std::string m_preset = "custom";
    LossScaleState m_state;
};

}  // namespace ampstudio
