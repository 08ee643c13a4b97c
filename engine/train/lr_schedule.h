#pragma once
// Learning-rate schedules, as pure functions of the step (every iteration counts, skipped ones too,
// as a PyTorch scheduler stepped once per iteration does):
//   constant     base
//   step         base * gamma^floor(step / stepSize)                        (StepLR)
//   cosine       min + (base - min) * (1 + cos(pi * step / total)) / 2      (CosineAnnealingLR)
//   one-cycle    PyTorch's OneCycleLR with cosine annealing: from base/divFactor up to base over the
//                first pctStart of the steps, then down to base/(divFactor*finalDivFactor)
// An optional linear warm-up from 0 to the schedule's value precedes constant, step and cosine.
#include <cstdint>
#include <string>
#include <string_view>

namespace ampstudio {

enum class LrScheduleKind { Constant, Step, Cosine, OneCycle };

struct LrSchedule {
    LrScheduleKind kind = LrScheduleKind::Constant;
    double baseLr = 0.01;  // for one-cycle: its maximum
    int64_t stepSize = 1000;
    double gamma = 0.1;
    double minLr = 0.0;
    int64_t warmupSteps = 0;
    double pctStart = 0.3;
    double divFactor = 25.0;
    double finalDivFactor = 1e4;

    // The rate at `step` (0-based) of a run of `totalSteps` (>= 1).
    double at(int64_t step, int64_t totalSteps) const;

    // "constant", "step:N[:GAMMA]", "cosine[:MIN]", "one-cycle" (or "onecycle"); base rate given
    // separately. Throws std::invalid_argument naming the text and the accepted forms.
    static LrSchedule parse(std::string_view text, double baseLr);
    std::string describe() const;
};

}  // namespace ampstudio
