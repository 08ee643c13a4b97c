#pragma once
// The QSettings keys of the application in one place, and the recent-files list stored as a
// QSettings array (as Qt's mdi example does).

#include <QSettings>
#include <QStringList>

namespace settings {

inline constexpr auto kGeometry = "window/geometry";
inline constexpr auto kWindowState = "window/state";
inline constexpr auto kSplitterState = "window/splitter";
inline constexpr auto kLastDirectory = "files/lastDirectory";
inline constexpr auto kRecentFiles = "files/recent";
inline constexpr auto kUserPresets = "lists/userPresets";  // list files imported or exported by the user
// "" follows the system locale; otherwise a language code ("en", "de").
inline constexpr auto kLanguage = "preferences/language";
// "system", "light" or "dark".
inline constexpr auto kTheme = "preferences/theme";

inline QStringList readRecentFiles(QSettings& settings) {
    QStringList files;
    const int count = settings.beginReadArray(QLatin1String(kRecentFiles));
    for (int i = 0; i < count; ++i) {
        settings.setArrayIndex(i);
        files.append(settings.value(QStringLiteral("path")).toString());
    }
    settings.endArray();
    files.removeAll(QString());
    return files;
}

inline void writeRecentFiles(QSettings& settings, const QStringList& files) {
    settings.beginWriteArray(QLatin1String(kRecentFiles), static_cast<int>(files.size()));
    for (int i = 0; i < files.size(); ++i) {
        settings.setArrayIndex(i);
        settings.setValue(QStringLiteral("path"), files[i]);
    }
    settings.endArray();
}

}  // namespace settings
