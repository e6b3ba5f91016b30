import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// The main chat window. Until a model is loaded it shows what to do next.
ApplicationWindow {
    id: window
    objectName: "mainWindow"
    width: 1100
    height: 760
    minimumWidth: 640
    minimumHeight: 480
    visible: true
    title: qsTr("Trit")

    EmptyState {
        anchors.fill: parent
    }
}
