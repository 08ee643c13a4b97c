#include "preferences_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QSettings>
#include <QVBoxLayout>

#include "app_settings.h"
#include "appearance.h"

PreferencesDialog::PreferencesDialog(QWidget* parent)
    : QDialog(parent), m_language(new QComboBox(this)), m_theme(new QComboBox(this)) {
    setWindowTitle(tr("Preferences"));
    QSettings settings;

    m_language->addItem(tr("System default"), QString());
    for (const auto& [code, name] : appearance::availableLanguages()) {
        m_language->addItem(name, code);
    }
    m_language->setCurrentIndex(std::max(0, m_language->findData(settings.value(settings::kLanguage).toString())));

    m_theme->addItem(tr("System default"), QStringLiteral("system"));
    m_theme->addItem(tr("Light"), QStringLiteral("light"));
    m_theme->addItem(tr("Dark"), QStringLiteral("dark"));
    m_theme->setCurrentIndex(std::max(0, m_theme->findData(settings.value(settings::kTheme, "system").toString())));

    auto* form = new QFormLayout;
    form->addRow(tr("&Language:"), m_language);
    form->addRow(tr("&Theme:"), m_theme);
    auto* note = new QLabel(tr("Changes take effect when AMP Studio is started again."), this);
    note->setWordWrap(true);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(note);
    layout->addWidget(buttons);
}

void PreferencesDialog::apply() const {
    QSettings settings;
    settings.setValue(settings::kLanguage, m_language->currentData().toString());
    settings.setValue(settings::kTheme, m_theme->currentData().toString());
}
