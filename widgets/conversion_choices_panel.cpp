#include "conversion_choices_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileInfo>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>

using namespace ampstudio;

namespace {
const QString kBuiltinFloat16 = QStringLiteral("builtin:float16");
const QString kBuiltinBfloat16 = QStringLiteral("builtin:bfloat16");
}  // namespace

ConversionChoicesPanel::ConversionChoicesPanel(QWidget* parent) : QWidget(parent) {
    m_dtypeCombo = new QComboBox(this);
    m_dtypeCombo->setObjectName(QStringLiteral("targetDtypeCombo"));
    m_dtypeCombo->addItem(QStringLiteral("float16"), int(DType::F16));
    m_dtypeCombo->addItem(QStringLiteral("bfloat16"), int(DType::BF16));
    m_dtypeCombo->setToolTip(
        tr("The precision target-dtype ops run in. With unedited lists, switching also "
           "switches to MXNet's default lists for that dtype."));
    connect(m_dtypeCombo, &QComboBox::activated, this, [this](int index) {
        if (m_settings) {
            m_settings->setTargetDtype(DType(m_dtypeCombo->itemData(index).toInt()));
        }
    });

    m_modeCombo = new QComboBox(this);
    m_modeCombo->setObjectName(QStringLiteral("modeCombo"));
    m_modeCombo->addItem(QStringLiteral("typed"), int(ConversionMode::Typed));
    m_modeCombo->setItemData(0, tr("MXNet 1.9.1: knows dtypes and inserts fewer casts"), Qt::ToolTipRole);
    m_modeCombo->addItem(QStringLiteral("classic"), int(ConversionMode::Classic));
    m_modeCombo->setItemData(1, tr("The original AMP proposal (MXNet 1.6 and earlier)"), Qt::ToolTipRole);
    m_modeCombo->setToolTip(tr("Conversion algorithm: typed (MXNet 1.9.1) or classic (MXNet ≤ 1.6)"));
    connect(m_modeCombo, &QComboBox::activated, this, [this](int index) {
        if (m_settings) {
            m_settings->setMode(ConversionMode(m_modeCombo->itemData(index).toInt()));
        }
    });

    m_castOptionalCheck = new QCheckBox(tr("Cast optional params"), this);
    m_castOptionalCheck->setObjectName(QStringLiteral("castOptionalParamsCheck"));
    m_castOptionalCheck->setToolTip(
        tr("Typed mode: store parameters that only target-dtype ops read in the "
           "target dtype (half the bytes) instead of casting them at run time"));
    connect(m_castOptionalCheck, &QCheckBox::clicked, this, [this](bool on) {
        if (m_settings) {
            m_settings->setCastOptionalParams(on);
        }
    });

    m_presetCombo = new QComboBox(this);
    m_presetCombo->setObjectName(QStringLiteral("presetCombo"));
    m_presetCombo->setPlaceholderText(tr("Edited lists"));
    m_presetCombo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_presetCombo->setMinimumContentsLength(12);
    m_presetCombo->setToolTip(tr("Replace all lists by a preset: MXNet's defaults or a file you imported"));
    connect(m_presetCombo, &QComboBox::activated, this, &ConversionChoicesPanel::presetActivated);
    auto* importButton = new QPushButton(tr("Import…"), this);
    importButton->setObjectName(QStringLiteral("importButton"));
    importButton->setToolTip(tr("Load the lists from a JSON file (MXNet AMP list schema)"));
    connect(importButton, &QPushButton::clicked, this, &ConversionChoicesPanel::importRequested);
    auto* exportButton = new QPushButton(tr("Export…"), this);
    exportButton->setObjectName(QStringLiteral("exportButton"));
    exportButton->setToolTip(tr("Save the lists as a JSON file (MXNet AMP list schema)"));
    connect(exportButton, &QPushButton::clicked, this, &ConversionChoicesPanel::exportRequested);

    auto* grid = new QGridLayout(this);
    grid->setContentsMargins(0, 0, 0, 0);
    grid->addWidget(new QLabel(tr("Target:"), this), 0, 0);
    grid->addWidget(m_dtypeCombo, 0, 1);
    grid->addWidget(new QLabel(tr("Mode:"), this), 0, 2);
    grid->addWidget(m_modeCombo, 0, 3);
    grid->addWidget(m_castOptionalCheck, 1, 1, 1, 3);
    grid->addWidget(new QLabel(tr("Preset:"), this), 2, 0);
    grid->addWidget(m_presetCombo, 2, 1, 1, 3);
    auto* files = new QHBoxLayout;
    files->addStretch();
    files->addWidget(importButton);
    files->addWidget(exportButton);
    grid->addLayout(files, 3, 1, 1, 3);
    grid->setColumnStretch(1, 1);
    grid->setColumnStretch(3, 1);
}

void ConversionChoicesPanel::setSettings(ConversionSettings* settings) {
    m_settings = settings;
    refresh();
}

void ConversionChoicesPanel::refresh() {
    if (!m_settings) {
        return;
    }
    const ConversionOptions& options = m_settings->options();
    const QSignalBlocker blockDtype(m_dtypeCombo);
    const QSignalBlocker blockMode(m_modeCombo);
    const QSignalBlocker blockCast(m_castOptionalCheck);
    m_dtypeCombo->setCurrentIndex(m_dtypeCombo->findData(int(options.lists.targetDtype)));
    m_modeCombo->setCurrentIndex(m_modeCombo->findData(int(options.mode)));
    m_castOptionalCheck->setChecked(options.castOptionalParams);
    // MXNet ignores cast_optional_params in its classic pass; so does ours.
    m_castOptionalCheck->setEnabled(options.mode == ConversionMode::Typed);
}

void ConversionChoicesPanel::showPresets(const QStringList& userPresets, int current) {
    const QSignalBlocker block(m_presetCombo);
    m_presetCombo->clear();
    // The built-in lists of the model's op set: MXNet 1.9.1's, or PyTorch's autocast lists for ONNX.
    const bool onnx = m_settings && m_settings->options().lists.opSet() == OpSet::Onnx;
    m_presetCombo->addItem(onnx ? tr("ONNX (PyTorch autocast) float16") : tr("MXNet 1.9.1 float16"), kBuiltinFloat16);
    m_presetCombo->addItem(onnx ? tr("ONNX (PyTorch autocast) bfloat16") : tr("MXNet 1.9.1 bfloat16"), kBuiltinBfloat16);
    for (const QString& path : userPresets) {
        m_presetCombo->addItem(QFileInfo(path).fileName(), path);
        m_presetCombo->setItemData(m_presetCombo->count() - 1, path, Qt::ToolTipRole);
    }
    m_presetCombo->setCurrentIndex(current);  // -1 shows the placeholder, "Edited lists"
}

void ConversionChoicesPanel::presetActivated(int index) {
    if (index < 0) {
        return;
    }
    const QString key = m_presetCombo->itemData(index).toString();
    const QString name = m_presetCombo->itemText(index);
    if (key == kBuiltinFloat16 || key == kBuiltinBfloat16) {
        emit builtinPresetChosen(key == kBuiltinFloat16 ? DType::F16 : DType::BF16, name);
    } else {
        emit userPresetChosen(key, name);
    }
}
