#pragma once
// The dynamic loss scale of mixed-precision training: the loss is multiplied by scale() before the
// backward pass so that small f16 gradients do not flush to zero; after the backward pass the trainer
// unscales, checks for inf/NaN and calls update(overflow). An overflow step is skipped (weights and
// optimizer state untouched) and the scale backs off; a run of clean steps grows it again.
//
// One rule, PyTorch's (`_amp_update_scale_` in aten/src/ATen/native/cuda/AmpKernels.cu):
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

namespace ampstudio {

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

    double scale() const { return m_scale; }
    // Records one step's outcome and updates the scale. Returns true when the step must be skipped,
    // which is exactly when overflow is true.
    bool update(bool overflow);

    int64_t steps() const { return m_steps; }
    int64_t skippedSteps() const { return m_skipped; }
    int64_t growthCounter() const { return m_counter; }  // clean steps counted towards the next growth
    int hysteresisLeft() const { return m_hysteresisLeft; }
    // A scale below 1 shrinks gradients instead of protecting them: training is probably diverging.
    // The trainer reports it as a warning in the metrics.
    bool scaleBelowOne() const { return m_scale < 1.0; }

    // Back to the initial state (scale, counters, skipped steps).
    void reset();

private:
    LossScalerSettings m_settings;
    std::string m_preset = "custom";
    double m_scale = 0.0;
    int64_t m_counter = 0;
    int m_hysteresisLeft = 1;
    int64_t m_steps = 0;
    int64_t m_skipped = 0;
};

}  // namespace ampstudio
