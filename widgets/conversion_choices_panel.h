#pragma once
// The top of the op-list editor: the target dtype, the conversion mode and cast-optional-params,
// set through ConversionSettings (so each is an undo step, like every other edit), and the lists
// preset with Import… and Export…, which it leaves to the editor: they read and write files.

#include <QPointer>
#include <QStringList>
#include <QWidget>

#include "conversion_settings.h"

class QCheckBox;
class QComboBox;
class QPushButton;

class ConversionChoicesPanel : public QWidget {
    Q_OBJECT
public:
    explicit ConversionChoicesPanel(QWidget* parent = nullptr);

    void setSettings(ConversionSettings* settings);
    // Shows the settings' dtype, mode and cast-optional-params (none when there are no settings).
    void refresh();
    // The presets: MXNet's float16 and bfloat16 lists, then the files `userPresets`. `current` is the
    // one the lists equal (0 and 1 MXNet's, 2 + i the i-th file), -1 for edited lists.
    void showPresets(const QStringList& userPresets, int current);

signals:
    void builtinPresetChosen(ampstudio::DType dtype, const QString& name);
    void userPresetChosen(const QString& path, const QString& name);
    void importRequested();
    void exportRequested();

private:
    void presetActivated(int index);

    QPointer<ConversionSettings> m_settings;
    QComboBox* m_dtypeCombo = nullptr;
    QComboBox* m_modeCombo = nullptr;
    QCheckBox* m_castOptionalCheck = nullptr;
    QComboBox* m_presetCombo = nullptr;
};
