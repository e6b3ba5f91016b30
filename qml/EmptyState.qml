import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// Shown while no conversation can start: no model yet (points to the model manager), a model loading,
// or a model that failed to load (the engine's message and what to do), or a ready model with an empty
// conversation.
Item {
    id: root
    objectName: "emptyState"
    property string engineState: "noModel"   // the engine's state: "noModel", "loading", "error", "ready"
    property string errorMessage: ""
    property string modelName: ""
    property ChatTheme theme: ChatTheme {}
    property alias heading: headingLabel.text
    signal modelManagerRequested()
    signal openFileRequested()

    ColumnLayout {
        anchors.centerIn: parent
        width: Math.min(parent.width - 2 * root.theme.spaceXl, 520)
        spacing: root.theme.spaceM
        BusyIndicator {
            visible: root.engineState === "loading"
            running: visible
            Layout.alignment: Qt.AlignHCenter
            Accessible.name: qsTr("Loading the model")
        }
        Label {
            id: headingLabel
            objectName: "emptyStateHeading"
            Layout.alignment: Qt.AlignHCenter
            text: {
                switch (root.engineState) {
                case "loading": return qsTr("Loading the model…")
                case "error": return qsTr("The model could not be loaded")
                case "ready": return qsTr("Ready when you are")
                default: return qsTr("No model loaded")
                }
            }
            font.pointSize: root.theme.fontHeadline
            font.weight: Font.DemiBold
            color: root.engineState === "error" ? root.theme.error : root.theme.text
            Accessible.role: Accessible.Heading
        }
        Label {
            objectName: "emptyStateDetail"
            Layout.alignment: Qt.AlignHCenter
            Layout.fillWidth: true
            wrapMode: Text.WordWrap
            horizontalAlignment: Text.AlignHCenter
            color: root.theme.mutedText
            font.pointSize: root.theme.fontSubtitle
            text: {
                switch (root.engineState) {
                case "loading": return qsTr("The weights are read and moved to the device. The window stays usable meanwhile.")
                case "error": return root.errorMessage
                case "ready": return qsTr("%1 is loaded. Write a message below; replies are generated on this computer, offline.").arg(root.modelName)
                default: return qsTr("Trit runs ternary (1.58-bit) language models on your own GPU, offline. Add a model to start chatting.")
                }
            }
        }
        // Side by side, or one above the other where the window is narrow.
        GridLayout {
            visible: root.engineState === "noModel" || root.engineState === "error"
            Layout.alignment: Qt.AlignHCenter
            Layout.topMargin: root.theme.spaceS
            columns: parent.width >= managerButton.implicitWidth + fileButton.implicitWidth + columnSpacing ? 2 : 1
            columnSpacing: root.theme.spaceS
            rowSpacing: root.theme.spaceS
            IconButton {
                id: managerButton
                objectName: "openModelManagerButton"
                Layout.fillWidth: true
                theme: root.theme
                filled: true
                implicitHeight: 36
                iconName: "folder-download"
                text: qsTr("Open the model manager")
                font.pointSize: root.theme.fontBody
                onClicked: root.modelManagerRequested()
            }
            IconButton {
                id: fileButton
                objectName: "openModelFileButton"
                Layout.fillWidth: true
                theme: root.theme
                outlined: true
                implicitHeight: 36
                iconName: "document-open"
                text: qsTr("Open a model file…")
                font.pointSize: root.theme.fontBody
                onClicked: root.openFileRequested()
            }
        }
    }
}
