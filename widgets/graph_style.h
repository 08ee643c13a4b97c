#pragma once
// How a graph drawing looks: the fill of each NodeStyle, the outline shape that tells casts apart
// from ordinary nodes, and the palette-dependent colours and fonts every item of one view shares.
// One place, so that the view, its legend and the exported PNG/SVG can never disagree.

#include <QColor>
#include <QFont>
#include <QFontMetricsF>
#include <QPainterPath>
#include <QPalette>
#include <QRectF>
#include <array>
#include <optional>

#include "graph_drawing.h"

// The fill a style is drawn with. The hues are Okabe & Ito's colour-blind-safe set ("Color Universal
// Design", 2008): the pair that matters most, target dtype against float32, is bluish green against
// blue, which stay apart in every common form of colour blindness by lightness as well as hue.
// The same fills serve light and dark palettes; text on them picks its colour by contrast.
QColor nodeStyleFill(NodeStyle style);

// The outline of a node of `style` filling `rect`: a rounded rectangle for ordinary nodes, a
// hexagon for amp_cast and a pill for amp_multicast, so that casts stand out without colour.
QPainterPath nodeStyleOutline(NodeStyle style, const QRectF& rect);
// How far the cast hexagon's points reach in from the sides of `rect`.
qreal hexagonInset(const QRectF& rect);

// Black-ish or white text, whichever contrasts more with `fill` (WCAG relative luminance).
QColor textColourOn(const QColor& fill);

// The style whose colour stands for a dtype as badges and edge labels spell it: "f16" / "bf16" ->
// Target, "f32" -> Float32, "widest" -> Widest; nothing for other dtypes (int32, ...) or unknown ones.
// Badges and dtype-labelled edges take that colour, so a cast reads like the nodes it feeds.
std::optional<NodeStyle> dtypeStyle(const QString& dtype);

// The colours and fonts the items of one view paint with, derived once from the view's palette and
// font (and again when either changes) rather than looked up per item per paint.
struct GraphSceneStyle {
    bool dark = false;
    QColor background;
    QColor edge;             // edges whose dtype is not known
    QColor edgeLabel;        // dtype labels on edges
    QColor labelHalo;        // behind edge labels, so they stay legible where edges cross
    QColor excludedOutline;  // dashed outline of excluded nodes
    QColor selection;        // outline and halo of the selected node
    QColor match;            // halo of search matches
    std::array<QColor, kNodeStyleCount> fill;
    std::array<QColor, kNodeStyleCount> outline;
    std::array<QColor, kNodeStyleCount> text;

    QFont titleFont;
    QFont labelFont;
    QFont badgeFont;
    QFont edgeLabelFont;
    QFontMetricsF titleMetrics{QFont()};
    QFontMetricsF labelMetrics{QFont()};
    QFontMetricsF badgeMetrics{QFont()};
    QFontMetricsF edgeLabelMetrics{QFont()};

    // Off while exporting: selection and search highlights belong on screen, not in a saved picture.
    bool showHighlights = true;

    static GraphSceneStyle fromPalette(const QPalette& palette, const QFont& font);
    static bool isDark(const QPalette& palette);

    // The line colour of an edge carrying `dtype` (its label), the neutral edge colour when unknown.
    QColor edgeColour(const QString& dtype) const;
    // The fill of a cast's badge.
    QColor badgeFill(const QString& badge) const;
};

// Below these levels of detail (QStyleOptionGraphicsItem::levelOfDetailFromTransform) items draw less:
// no text under kTextLevel, edges as plain thin lines without arrows or labels under kPlainEdgeLevel.
inline constexpr qreal kTextLevel = 0.5;
inline constexpr qreal kPlainEdgeLevel = 0.2;
