import QtQuick
import QtQuick.Controls
import QtQuick.Dialogs
import QtQuick.Layouts
import Trit.App

// Sampling (2B4T defaults), context length, engine backend and GPU (applied by reloading the model),
// the models folder, the local API server, theme, reduced motion and font size. Every change is stored at once (AppSettings; the models folder
// by the model manager's bridge, which checks it, remembers it and rescans).
ThemedDialog {
    id: dialog
    objectName: "settingsDialog"
    property var settings: null
    property var engine: null
    // The local API server (app/src/server/api_server.h): state, statusText, url, copyUrl(), generateKey().
    // It follows the settings below on its own; tests give a stand-in.
    property var apiServer: null
    // The model manager's bridge (app/src/models/model_manager_bridge.h): App.models unless given; tests
    // give a stand-in with modelsFolder, modelsFolderError, gpuSummary and setModelsDir(pathOrUrl) -> bool.
    property var models: App.models
    title: qsTr("Settings")
    standardButtons: Dialog.Close
    width: Math.min(560, parent ? parent.width - 40 : 560)
    height: parent ? Math.min(implicitHeight, parent.height - 40) : implicitHeight  // scrolls in a small window

    // The device list shown: "Automatic", then the engine's Vulkan devices (index = position - 1).
    readonly property var deviceChoices: [qsTr("Automatic (best GPU)")].concat(engine ? engine.devices : [])
    property bool engineChanged: false
    readonly property alias modelsFolderDialog: folderDialog  // the "Browse…" dialog (tests look at it)

    onOpened: {
        engineChanged = false
        if (engine) engine.refreshDevices()
        if (models && models.refreshGpu) models.refreshGpu()
    }

    // Switches the models folder (a path typed in, or the folder dialog's URL). The bridge keeps the old
    // folder and says why when the new one is missing or not writable; the field then shows the folder
    // really in use.
    function chooseModelsFolder(pathOrUrl) {
        if (!models) return false
        const ok = models.setModelsDir(pathOrUrl.toString())
        folderField.text = models.modelsFolder
        return ok
    }
    onClosed: if (engineChanged && engine && engine.modelPath.length > 0) engine.reload()

    ScrollView {
        anchors.fill: parent
        contentWidth: availableWidth
        GridLayout {
            width: parent.width
            columns: 2
            columnSpacing: 12
            rowSpacing: 8

            Label { text: qsTr("Sampling"); font.pointSize: dialog.theme.fontSubtitle; font.weight: Font.DemiBold; Layout.columnSpan: 2; Layout.topMargin: dialog.theme.spaceXs; Accessible.role: Accessible.Heading }
            Label { text: qsTr("Temperature") }
            SpinBox {
                objectName: "temperatureSpin"
                from: 0; to: 200; stepSize: 5
                value: dialog.settings ? Math.round(dialog.settings.temperature * 100) : 60
                textFromValue: (v) => (v / 100).toFixed(2)
                valueFromText: (t) => Math.round(parseFloat(t) * 100)
                editable: true
                Accessible.name: qsTr("Temperature")
                onValueModified: dialog.settings.temperature = value / 100
            }
            Label { text: qsTr("Top-k") }
            SpinBox {
                from: 0; to: 1000
                value: dialog.settings ? dialog.settings.topK : 40
                editable: true
                Accessible.name: qsTr("Top-k")
                onValueModified: dialog.settings.topK = value
            }
            Label { text: qsTr("Top-p") }
            SpinBox {
                from: 1; to: 100  // the engine needs top-p > 0
                value: dialog.settings ? Math.round(dialog.settings.topP * 100) : 95
                textFromValue: (v) => (v / 100).toFixed(2)
                valueFromText: (t) => Math.round(parseFloat(t) * 100)
                editable: true
                Accessible.name: qsTr("Top-p")
                onValueModified: dialog.settings.topP = value / 100
            }
            Label { text: qsTr("Min-p") }
            SpinBox {
                from: 0; to: 99  // the engine needs min-p < 1
                value: dialog.settings ? Math.round(dialog.settings.minP * 100) : 5
                textFromValue: (v) => (v / 100).toFixed(2)
                valueFromText: (t) => Math.round(parseFloat(t) * 100)
                editable: true
                Accessible.name: qsTr("Min-p")
                onValueModified: dialog.settings.minP = value / 100
            }
            Label { text: qsTr("Repetition penalty") }
            SpinBox {
                from: 100; to: 200; stepSize: 5
                value: dialog.settings ? Math.round(dialog.settings.repeatPenalty * 100) : 110
                textFromValue: (v) => (v / 100).toFixed(2)
                valueFromText: (t) => Math.round(parseFloat(t) * 100)
                editable: true
                Accessible.name: qsTr("Repetition penalty")
                onValueModified: dialog.settings.repeatPenalty = value / 100
            }
            Label { text: qsTr("Longest reply (tokens)") }
            SpinBox {
                from: 16; to: 32768; stepSize: 256
                value: dialog.settings ? dialog.settings.maxTokens : 2048
                editable: true
                Accessible.name: qsTr("Longest reply in tokens")
                onValueModified: dialog.settings.maxTokens = value
            }
            Button {
                Layout.columnSpan: 2
                text: qsTr("Restore the recommended sampling settings")
                onClicked: dialog.settings.resetSampling()
            }

            Label { text: qsTr("System prompt for new chats"); Layout.alignment: Qt.AlignTop }
            TextArea {
                Layout.fillWidth: true
                Layout.preferredHeight: 60
                wrapMode: TextEdit.Wrap
                text: dialog.settings ? dialog.settings.systemPrompt : ""
                placeholderText: qsTr("Optional instructions given to the model before every chat")
                Accessible.name: qsTr("System prompt for new chats")
                background: Rectangle {
                    radius: dialog.theme.radiusS
                    color: dialog.theme.surface
                    border.color: parent.activeFocus ? dialog.theme.focusRing : dialog.theme.border
                }
                onEditingFinished: dialog.settings.systemPrompt = text
            }

            Label { text: qsTr("Engine"); font.pointSize: dialog.theme.fontSubtitle; font.weight: Font.DemiBold; Layout.columnSpan: 2; Layout.topMargin: dialog.theme.spaceXs; Accessible.role: Accessible.Heading }
            Label { text: qsTr("Run on") }
            ComboBox {
                objectName: "backendCombo"
                Layout.fillWidth: true
                model: [qsTr("GPU (Vulkan)"), qsTr("CPU (slow reference engine)")]
                currentIndex: dialog.settings && dialog.settings.backend === "cpu" ? 1 : 0
                Accessible.name: qsTr("Engine backend")
                onActivated: (i) => { dialog.settings.backend = i === 1 ? "cpu" : "vulkan"; dialog.engineChanged = true }
            }
            Label { text: qsTr("GPU") }
            ComboBox {
                objectName: "deviceCombo"
                Layout.fillWidth: true
                model: dialog.deviceChoices
                currentIndex: dialog.settings ? Math.min(dialog.settings.device + 1, count - 1) : 0
                Accessible.name: qsTr("GPU device")
                onActivated: (i) => { dialog.settings.device = i - 1; dialog.engineChanged = true }
            }
            Label {
                Layout.columnSpan: 2
                visible: dialog.engine !== null && dialog.engine.devicesError.length > 0
                text: dialog.engine ? dialog.engine.devicesError : ""
                wrapMode: Text.Wrap
                Layout.fillWidth: true
                color: dialog.theme.error
            }
            Label { text: qsTr("Context length (0: the model's)") }
            SpinBox {
                objectName: "contextSpin"
                from: 0; to: 131072; stepSize: 512
                value: dialog.settings ? dialog.settings.contextLength : 0
                editable: true
                Accessible.name: qsTr("Context length in tokens")
                onValueModified: { dialog.settings.contextLength = value; dialog.engineChanged = true }
            }
            Label {
                Layout.columnSpan: 2
                Layout.fillWidth: true
                wrapMode: Text.Wrap
                text: qsTr("Engine changes apply when this dialog closes: the model is loaded again.")
                color: dialog.theme.mutedText
            }

            Label {
                objectName: "gpuMemoryLabel"
                Layout.columnSpan: 2
                Layout.fillWidth: true
                wrapMode: Text.Wrap
                visible: text.length > 0
                text: dialog.models && dialog.models.gpuSummary ? dialog.models.gpuSummary : ""
                color: dialog.theme.mutedText
            }

            Label {
                text: qsTr("Models"); font.pointSize: dialog.theme.fontSubtitle; font.weight: Font.DemiBold; Layout.columnSpan: 2; Layout.topMargin: dialog.theme.spaceXs; Accessible.role: Accessible.Heading
                visible: dialog.models !== null
            }
            Label { text: qsTr("Models folder"); visible: dialog.models !== null }
            RowLayout {
                Layout.fillWidth: true
                visible: dialog.models !== null
                TextField {
                    id: folderField
                    objectName: "modelsFolderField"
                    Layout.fillWidth: true
                    text: dialog.models ? dialog.models.modelsFolder : ""
                    selectByMouse: true
                    Accessible.name: qsTr("Models folder")
                    onEditingFinished: if (dialog.models && text !== dialog.models.modelsFolder) dialog.chooseModelsFolder(text)
                }
                Button {
                    objectName: "modelsFolderBrowse"
                    text: qsTr("Browse…")
                    Accessible.name: qsTr("Choose the models folder")
                    onClicked: {
                        folderDialog.currentFolder = "file://" + encodeURI(folderField.text)
                        folderDialog.open()
                    }
                }
            }
            Label {
                objectName: "modelsFolderError"
                Layout.columnSpan: 2
                Layout.fillWidth: true
                wrapMode: Text.Wrap
                visible: text.length > 0
                text: dialog.models ? dialog.models.modelsFolderError : ""
                color: dialog.theme.error
            }

            Label {
                text: qsTr("Local API server"); font.pointSize: dialog.theme.fontSubtitle; font.weight: Font.DemiBold; Layout.columnSpan: 2; Layout.topMargin: dialog.theme.spaceXs; Accessible.role: Accessible.Heading
            }
            Label {
                Layout.columnSpan: 2
                Layout.fillWidth: true
                wrapMode: Text.Wrap
                color: dialog.theme.mutedText
                text: qsTr("Programs and editors can use the model loaded in this window through an OpenAI-compatible "
                           + "API (docs/api.md). Chat and API requests take turns, in the order they come.")
            }
            Label { text: qsTr("API server") }
            Switch {
                objectName: "apiServerSwitch"
                checked: dialog.settings ? dialog.settings.apiServerEnabled : false
                text: checked ? qsTr("On") : qsTr("Off")
                Accessible.name: qsTr("Local API server")
                onToggled: dialog.settings.apiServerEnabled = checked
            }
            Label { text: qsTr("Port") }
            SpinBox {
                objectName: "apiPortSpin"
                from: 1; to: 65535
                editable: true
                value: dialog.settings ? dialog.settings.apiServerPort : 8080
                textFromValue: (v) => String(v)  // a port, not a quantity: no group separator
                valueFromText: (t) => parseInt(t)
                Accessible.name: qsTr("API server port")
                onValueModified: dialog.settings.apiServerPort = value
            }
            Label { text: qsTr("API key") }
            RowLayout {
                Layout.fillWidth: true
                TextField {
                    id: apiKeyField
                    objectName: "apiKeyField"
                    Layout.fillWidth: true
                    text: dialog.settings ? dialog.settings.apiServerKey : ""
                    placeholderText: qsTr("None (only this computer may connect)")
                    selectByMouse: true
                    Accessible.name: qsTr("API key")
                    onEditingFinished: if (dialog.settings && text !== dialog.settings.apiServerKey) dialog.settings.apiServerKey = text
                }
                Button {
                    objectName: "apiKeyGenerate"
                    text: qsTr("Generate")
                    enabled: dialog.apiServer !== null
                    Accessible.name: qsTr("Generate a new API key")
                    onClicked: {
                        dialog.settings.apiServerKey = dialog.apiServer.generateKey()
                        apiKeyField.text = dialog.settings.apiServerKey
                    }
                }
            }
            CheckBox {
                objectName: "apiAllowOthersCheck"
                Layout.columnSpan: 2
                text: qsTr("Allow other machines (they must send the API key)")
                checked: dialog.settings ? dialog.settings.apiServerAllowOthers : false
                onToggled: dialog.settings.apiServerAllowOthers = checked
            }
            RowLayout {
                Layout.columnSpan: 2
                Layout.fillWidth: true
                readonly property string serverState: dialog.apiServer ? dialog.apiServer.state : "off"
                Label {
                    objectName: "apiServerStatus"
                    Layout.fillWidth: true
                    wrapMode: Text.Wrap
                    text: dialog.apiServer ? dialog.apiServer.statusText : ""
                    color: parent.serverState === "error" ? dialog.theme.error : dialog.theme.mutedText
                }
                Button {
                    objectName: "apiCopyUrl"
                    visible: parent.serverState === "listening"
                    text: qsTr("Copy URL")
                    Accessible.name: qsTr("Copy the API server's URL")
                    onClicked: dialog.apiServer.copyUrl()
                }
            }

            Label { text: qsTr("Appearance"); font.pointSize: dialog.theme.fontSubtitle; font.weight: Font.DemiBold; Layout.columnSpan: 2; Layout.topMargin: dialog.theme.spaceXs; Accessible.role: Accessible.Heading }
            Label { text: qsTr("Theme") }
            ComboBox {
                objectName: "themeCombo"
                Layout.fillWidth: true
                readonly property var values: ["system", "light", "dark"]
                model: [qsTr("Follow the system"), qsTr("Light"), qsTr("Dark")]
                currentIndex: dialog.settings ? Math.max(0, values.indexOf(dialog.settings.theme)) : 0
                Accessible.name: qsTr("Theme")
                onActivated: (i) => dialog.settings.theme = values[i]
            }
            Label { text: qsTr("Motion") }
            CheckBox {
                objectName: "reduceMotionCheck"
                text: qsTr("Reduce motion")
                ToolTip.visible: hovered
                ToolTip.text: qsTr("No transitions or animations in the window")
                checked: dialog.settings ? dialog.settings.reduceMotion : false
                onToggled: dialog.settings.reduceMotion = checked
            }
            Label { text: qsTr("Font size") }
            SpinBox {
                objectName: "fontSizeSpin"
                from: 8; to: 32
                value: dialog.settings ? dialog.settings.fontSize : 11
                Accessible.name: qsTr("Font size in points")
                onValueModified: dialog.settings.fontSize = value
            }
        }
    }

    FolderDialog {
        id: folderDialog
        objectName: "modelsFolderDialog"
        title: qsTr("Choose the models folder")
        onAccepted: dialog.chooseModelsFolder(selectedFolder)
    }
}
