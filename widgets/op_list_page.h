#pragma once
// The pages of the op-list editor, in the order they are shown: the four op lists (in OpList's
// order, so that a page and its list convert into each other), conditional FP32, excluded nodes.

#include "conversion_settings.h"

enum class OpListPage { Target, Fp32, Widest, Neutral, Conditional, Excluded };

constexpr bool isOpListPage(OpListPage page) {
    return int(page) <= int(OpListPage::Neutral);
}

// The list an op-list page shows; OpList::None for the other pages.
constexpr OpList opListOf(OpListPage page) {
    return isOpListPage(page) ? OpList(int(page)) : OpList::None;
}
