#include "train/lr_schedule.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <vector>

namespace ampstudio {

namespace {

// PyTorch's _annealing_cos: from start (pct 0) to end (pct 1) along half a cosine.
double cosineAnneal(double start, double end, double pct) {
    return end + (start - end) / 2.0 * (std::cos(std::numbers::pi * pct) + 1.0);
}

std::vector<std::string_view> splitColons(std::string_view text) {
    std::vector<std::string_view> parts;
    std::size_t begin = 0;
    while (true) {
        const std::size_t colon = text.find(':', begin);
        parts.push_back(text.substr(begin, colon == std::string_view::npos ? std::string_view::npos : colon - begin));
        if (colon == std::string_view::npos) {
            return parts;
        }
        begin = colon + 1;
    }
}

[[noreturn]] void badSchedule(std::string_view text, std::string_view why) {
    throw std::invalid_argument("learning-rate schedule '" + std::string(text) + "': " + std::string(why) +
                                " (accepted: constant, step:N[:GAMMA], cosine[:MIN_LR], one-cycle)");
}

template <typename T>
T parseNumber(std::string_view text, std::string_view part) {
    T value{};
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), value);
    if (ec != std::errc() || end != part.data() + part.size()) {
        badSchedule(text, "'" + std::string(part) + "' is not a number");
    }
    return value;
}

}  // namespace

double LrSchedule::at(int64_t step, int64_t totalSteps) const {
    const auto total = static_cast<double>(std::max<int64_t>(totalSteps, 1));
    const auto s = static_cast<double>(std::max<int64_t>(step, 0));
    if (kind == LrScheduleKind::OneCycle) {
        const double initial = baseLr / divFactor;
        const double minimum = initial / finalDivFactor;
        const double upEnd = pctStart * total - 1.0;
        if (s <= upEnd) {
            return cosineAnneal(initial, baseLr, upEnd > 0.0 ? s / upEnd : 1.0);
        }
        const double downLength = (total - 1.0) - upEnd;
        return cosineAnneal(baseLr, minimum, downLength > 0.0 ? std::min(1.0, (s - upEnd) / downLength) : 1.0);
    }
    double lr = baseLr;
    switch (kind) {
        case LrScheduleKind::Constant: break;
        case LrScheduleKind::Step:
            lr = baseLr * std::pow(gamma, std::floor(s / static_cast<double>(std::max<int64_t>(stepSize, 1))));
            break;
        case LrScheduleKind::Cosine: lr = minLr + (baseLr - minLr) * (1.0 + std::cos(std::numbers::pi * std::min(s / total, 1.0))) / 2.0; break;
        case LrScheduleKind::OneCycle: break;
    }
    if (warmupSteps > 0 && step < warmupSteps) {
        lr *= static_cast<double>(step + 1) / static_cast<double>(warmupSteps);
    }
    return lr;
}

LrSchedule LrSchedule::parse(std::string_view text, double baseLr) {
    if (!(baseLr > 0.0) || !std::isfinite(baseLr)) {
        throw std::invalid_argument("learning rate " + std::to_string(baseLr) + " must be positive and finite");
    }
    const std::vector<std::string_view> parts = splitColons(text);
    LrSchedule schedule;
    schedule.baseLr = baseLr;
    const std::string_view name = parts[0];
    if (name == "constant" && parts.size() == 1) {
        schedule.kind = LrScheduleKind::Constant;
    } else if (name == "step") {
        if (parts.size() < 2 || parts.size() > 3) {
            badSchedule(text, "step needs the number of steps between decays");
        }
        schedule.kind = LrScheduleKind::Step;
        schedule.stepSize = parseNumber<int64_t>(text, parts[1]);
        if (schedule.stepSize < 1) {
            badSchedule(text, "the step size must be at least 1");
        }
        if (parts.size() == 3) {
            schedule.gamma = parseNumber<double>(text, parts[2]);
            if (!(schedule.gamma > 0.0 && schedule.gamma <= 1.0)) {
                badSchedule(text, "gamma must be in (0, 1]");
            }
        }
    } else if (name == "cosine" && parts.size() <= 2) {
        schedule.kind = LrScheduleKind::Cosine;
        if (parts.size() == 2) {
            schedule.minLr = parseNumber<double>(text, parts[1]);
            if (!(schedule.minLr >= 0.0 && schedule.minLr <= baseLr)) {
                badSchedule(text, "the minimum must be in [0, base rate]");
            }
        }
    } else if ((name == "one-cycle" || name == "onecycle") && parts.size() == 1) {
        schedule.kind = LrScheduleKind::OneCycle;
    } else {
        badSchedule(text, "unknown schedule");
    }
    return schedule;
}

std::string LrSchedule::describe() const {
    switch (kind) {
        case LrScheduleKind::Constant: return "constant";
        case LrScheduleKind::Step: return "step:" + std::to_string(stepSize);
        case LrScheduleKind::Cosine: return "cosine";
        case LrScheduleKind::OneCycle: return "one-cycle";
    }
    return "constant";
}

}  // namespace ampstudio
