#pragma once
// Edit → Preferences: language and colour theme. Both take effect at the next start (the window is
// built once with the translation and palette it starts with); the dialog says so.

#include <QDialog>

class QComboBox;

class PreferencesDialog : public QDialog {
    Q_OBJECT
public:
    explicit PreferencesDialog(QWidget* parent = nullptr);
    // Stores the choices in QSettings.
    void apply() const;

private:
    QComboBox* m_language;
    QComboBox* m_theme;
};
