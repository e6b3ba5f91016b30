import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// Shown while no model is loaded: says what Trit is and what to do next.
Item {
    id: root
    objectName: "emptyState"
    property alias heading: headingLabel.text

    ColumnLayout {
        anchors.centerIn: parent
        spacing: 12
        Label {
            id: headingLabel
            objectName: "emptyStateHeading"
            Layout.alignment: Qt.AlignHCenter
            text: qsTr("No model loaded")
            font.pixelSize: 22
            Accessible.role: Accessible.Heading
        }
        Label {
            Layout.alignment: Qt.AlignHCenter
            Layout.maximumWidth: 460
            wrapMode: Text.WordWrap
            horizontalAlignment: Text.AlignHCenter
            text: qsTr("Trit runs ternary (1.58-bit) language models on your own GPU, offline. Add a model to start chatting.")
        }
    }
}
