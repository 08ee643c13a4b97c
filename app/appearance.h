#pragma once
// Language and colour theme, applied once at start-up from the preferences (QSettings).

#include <QString>

class QApplication;

namespace appearance {

// Installs the translation for `language` ("de", "en"; empty: the system locale) from the bundled
// .qm files, and Qt's own translations when they are installed. Returns the language in effect.
QString installTranslation(QApplication& app, const QString& language);

// "dark" or "light" forces that palette (Fusion style); "system" keeps the platform's palette, but
// a dark system palette gets the Fusion style so that every widget is drawn dark.
void applyTheme(QApplication& app, const QString& theme);

// The languages with a translation, as (code, native name); English, the source, first.
QList<std::pair<QString, QString>> availableLanguages();

}  // namespace appearance
