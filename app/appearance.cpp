#include "appearance.h"

#include <QApplication>
#include <QLibraryInfo>
#include <QLocale>
#include <QPalette>
#include <QStyle>
#include <QStyleFactory>
#include <QTranslator>

namespace appearance {
namespace {

QPalette darkPalette() {
    QPalette p;
    const QColor window(0x2b, 0x2d, 0x30);
    const QColor base(0x1e, 0x1f, 0x22);
    const QColor text(0xdf, 0xe1, 0xe5);
    const QColor disabled(0x80, 0x80, 0x80);
    const QColor highlight(0x2f, 0x65, 0xca);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, window);
    p.setColor(QPalette::ToolTipBase, base);
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, disabled);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, window);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, Qt::red);
    p.setColor(QPalette::Link, QColor(0x58, 0x9d, 0xf6));
    p.setColor(QPalette::Highlight, highlight);
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Light, window.lighter(150));
    p.setColor(QPalette::Midlight, window.lighter(125));
    p.setColor(QPalette::Mid, window.darker(120));
    p.setColor(QPalette::Dark, window.darker(150));
    p.setColor(QPalette::Shadow, Qt::black);
    for (const auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText}) {
        p.setColor(QPalette::Disabled, role, disabled);
    }
    return p;
}

}  // namespace

QString installTranslation(QApplication& app, const QString& language) {
    const QLocale locale = language.isEmpty() ? QLocale::system() : QLocale(language);
    auto* own = new QTranslator(&app);
    // English is the source language: no file, and no warning when none matches.
    if (own->load(locale, QStringLiteral("ampstudio"), QStringLiteral("_"), QStringLiteral(":/i18n"))) {
        QApplication::installTranslator(own);
    } else {
        delete own;
    }
    auto* qt = new QTranslator(&app);
    if (qt->load(locale, QStringLiteral("qtbase"), QStringLiteral("_"),
                 QLibraryInfo::path(QLibraryInfo::TranslationsPath))) {
        QApplication::installTranslator(qt);
    } else {
        delete qt;
    }
    return locale.name().section(QLatin1Char('_'), 0, 0);
}

void applyTheme(QApplication& app, const QString& theme) {
    const bool systemIsDark = app.palette().color(QPalette::Window).lightness() < 128;
    if (theme == QLatin1String("dark") || (theme != QLatin1String("light") && systemIsDark)) {
        app.setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
        QApplication::setPalette(darkPalette());
    } else if (theme == QLatin1String("light")) {
        app.setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
        QApplication::setPalette(app.style()->standardPalette());
    }
}

QList<std::pair<QString, QString>> availableLanguages() {
    return {{QStringLiteral("en"), QStringLiteral("English")}, {QStringLiteral("de"), QStringLiteral("Deutsch")}};
}

}  // namespace appearance
