import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// Above the conversation: the model, with a switcher (the models on disk, then "Manage models…"), how
// much of the context the conversation uses, and the conversation's system prompt (a panel). It shows
// state and asks for changes through its signals; Main.qml passes them to the bridges.
Rectangle {
    id: header
    objectName: "chatHeader"
    property ChatTheme theme: ChatTheme {}
    property string engineState: "noModel"   // the engine bridge's state
    property string modelName: ""             // of the loaded model
    property string modelPath: ""             // its file (the switcher ticks it)
    property string loadingPath: ""           // the file being loaded
    // The models on disk: ModelManagerBridge.installed (rows whose modelData has name and path), or an
    // array of such maps.
    property var installedModels: []
    property int contextUsed: 0
    property int contextLength: 0             // 0: no model
    property bool contextFull: false
    property bool canEditSystemPrompt: true    // a conversation is open
    property string systemPrompt: ""
    readonly property alias modelMenu: menu
    readonly property alias systemPromptPanel: promptPanel

    signal modelChosen(string path)
    signal manageModelsRequested()
    signal systemPromptEdited(string text)

    function fileName(path) { return path.substring(path.lastIndexOf("/") + 1) }
    readonly property string modelText: {
        switch (engineState) {
        case "ready": return modelName.length > 0 ? modelName : fileName(modelPath)
        case "loading": return qsTr("Loading %1…").arg(fileName(loadingPath))
        case "error": return qsTr("The model could not be loaded")
        default: return qsTr("Choose a model")
        }
    }

    implicitHeight: 48
    color: theme.window
    Rectangle { anchors.bottom: parent.bottom; width: parent.width; height: 1; color: header.theme.border }

    RowLayout {
        anchors.fill: parent
        anchors.leftMargin: header.theme.spaceS
        anchors.rightMargin: header.theme.spaceM
        spacing: header.theme.spaceM

        IconButton {
            id: switcher
            objectName: "modelSwitcher"
            theme: header.theme
            // What the meter and the prompt button leave (the name elides in a narrow window).
            Layout.maximumWidth: Math.max(96, header.width - meter.implicitWidth - promptButton.implicitWidth
                                              - 3 * header.theme.spaceM - header.theme.spaceS)
            iconName: "pan-down"
            text: header.modelText
            font.pointSize: header.theme.fontSubtitle
            font.weight: Font.DemiBold
            LayoutMirroring.enabled: true      // the arrow after the name
            LayoutMirroring.childrenInherit: true
            toolTipText: qsTr("Switch the model")
            Accessible.name: qsTr("Model: %1. Switch the model").arg(header.modelText)
            onClicked: menu.open()
        }
        Item { Layout.fillWidth: true }
        ContextMeter {
            id: meter
            theme: header.theme
            used: header.contextUsed
            total: header.engineState === "ready" ? header.contextLength : 0
            full: header.contextFull
        }
        IconButton {
            id: promptButton
            objectName: "systemPromptButton"
            theme: header.theme
            visible: header.canEditSystemPrompt
            checked: promptPanel.visible
            iconName: "document-properties"
            text: header.width >= 560 ? qsTr("System prompt") : ""   // a narrow window: the icon alone
            toolTipText: header.systemPrompt.length > 0 ? header.systemPrompt
                                                        : qsTr("Instructions for this conversation (none yet)")
            Accessible.name: qsTr("System prompt of this conversation")
            onClicked: promptPanel.visible ? promptPanel.close() : promptPanel.open()
        }
    }

    // The switcher's menu: one item per model on disk (the loaded one ticked), then the model manager.
    Menu {
        id: menu
        objectName: "modelMenu"
        x: switcher.x + header.theme.spaceS
        y: header.height - header.theme.spaceXs
        Instantiator {
            id: menuModels
            model: header.installedModels
            delegate: MenuItem {
                required property var modelData
                objectName: "modelMenuItem_" + modelData.path
                text: modelData.name
                checkable: true
                checked: modelData.path === header.modelPath
                onTriggered: if (modelData.path !== header.modelPath || header.engineState !== "ready")
                                 header.modelChosen(modelData.path)
            }
            onObjectAdded: (index, object) => menu.insertItem(index, object)
            onObjectRemoved: (index, object) => menu.removeItem(object)
        }
        MenuItem {
            objectName: "noModelsItem"
            enabled: false
            text: qsTr("No models on disk yet")
            height: menuModels.count === 0 ? implicitHeight : 0
            visible: menuModels.count === 0
        }
        MenuSeparator {}
        MenuItem {
            objectName: "manageModelsItem"
            text: qsTr("Manage models…")
            onTriggered: header.manageModelsRequested()
        }
    }

    SystemPromptPanel {
        id: promptPanel
        theme: header.theme
        prompt: header.systemPrompt
        x: header.width - width - header.theme.spaceM
        y: header.height + header.theme.spaceXs
        // A press on the header (its button included) is not "outside": the button toggles the panel.
        closePolicy: Popup.CloseOnEscape | Popup.CloseOnPressOutsideParent
        onEdited: (text) => header.systemPromptEdited(text)
    }
}
