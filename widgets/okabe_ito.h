#pragma once
// Okabe & Ito's colour-blind-safe hues ("Color Universal Design", 2008), the ones graph_style.cpp
// fills nodes with: the training widgets draw in them too, so that one colour means one thing.

#include <QColor>

namespace okabe_ito {
inline const QColor kBlue(0x00, 0x72, 0xB2);
inline const QColor kVermillion(0xD5, 0x5E, 0x00);
inline const QColor kGreen(0x00, 0x9E, 0x73);
inline const QColor kPurple(0xCC, 0x79, 0xA7);
inline const QColor kGrey(0x88, 0x88, 0x88);  // not Okabe & Ito's: the neutral for a previous run
}  // namespace okabe_ito
