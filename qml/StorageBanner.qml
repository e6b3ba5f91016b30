import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// What went wrong with the saved conversations, with the way out: the database could not be opened
// (the chat goes on in memory; Retry), a damaged file was set aside (a notice), a save, export or
// import failed. Hidden when there is nothing to say.
Rectangle {
    id: banner
    property string message: ""
    property bool canRetry: false      // the database is not open: Retry opens it again
    property ChatTheme theme: ChatTheme {}
    signal retryRequested()
    signal dismissRequested()

    objectName: "storageBanner"
    visible: message.length > 0
    implicitHeight: visible ? bannerRow.implicitHeight + 16 : 0
    color: banner.canRetry ? theme.errorBackground : theme.surface
    border.color: theme.border
    Accessible.role: Accessible.AlertMessage
    Accessible.name: message

    RowLayout {
        id: bannerRow
        anchors.fill: parent
        anchors.margins: 8
        Label {
            objectName: "storageMessage"
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            text: banner.message
            color: banner.theme.text
        }
        Button {
            objectName: "storageRetryButton"
            visible: banner.canRetry
            text: qsTr("Retry")
            Accessible.name: qsTr("Try to open the conversation database again")
            onClicked: banner.retryRequested()
        }
        Button {
            objectName: "storageDismissButton"
            visible: !banner.canRetry
            text: qsTr("Dismiss")
            onClicked: banner.dismissRequested()
        }
    }
}
