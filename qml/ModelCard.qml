import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// One model on the model manager page (ModelManagerPage.qml): its name and a badge saying whether it
// fits the selected GPU, what it is (parameters, architecture, weight format, size, licence), and by
// state the download's progress with speed and time left, or where the file is on disk; the buttons that
// fit the state. It shows a row of ModelListModel (its toMap(), app/src/models) and emits
// requests; the page passes them on.
Rectangle {
    id: card
    property ChatTheme theme: ChatTheme {}
    // { id, name, description, license, sizeText, state, percent, receivedText, speedText, timeLeftText,
    //   message, architecture, parametersText, quantization, contextLength, fits, fitText, path }
    required property var modelData
    readonly property string state_: modelData.state || "available"
    readonly property bool transferring: state_ === "downloading" || state_ === "paused"

    signal downloadRequested()
    signal pauseRequested()
    signal resumeRequested()
    signal cancelRequested()
    signal useRequested()
    signal removeRequested()   // the page asks before anything is deleted
    signal showFileRequested()

    implicitHeight: column.implicitHeight + 2 * theme.spaceL
    radius: theme.radiusL
    color: theme.surface
    border.color: theme.border
    Accessible.role: Accessible.Grouping
    Accessible.name: modelData.name || ""

    ColumnLayout {
        id: column
        anchors.fill: parent
        anchors.margins: card.theme.spaceL
        spacing: card.theme.spaceXs + 2

        RowLayout {
            Layout.fillWidth: true
            spacing: card.theme.spaceS
            Label {
                objectName: "modelName"
                Layout.fillWidth: true
                text: card.modelData.name || ""
                font.pointSize: card.theme.fontSubtitle
                font.weight: Font.DemiBold
                color: card.theme.text
                elide: Text.ElideRight
            }
            // Whether the model fits the selected GPU's memory (the bridge's rule); nothing while unknown.
            Rectangle {
                id: badge
                objectName: "fitBadge"
                readonly property bool fits: card.modelData.fits === true
                visible: card.modelData.fits === true || card.modelData.fits === false
                implicitWidth: badgeLabel.implicitWidth + 2 * card.theme.spaceS
                implicitHeight: badgeLabel.implicitHeight + card.theme.spaceXs
                radius: height / 2
                color: fits ? card.theme.successBackground : card.theme.errorBackground
                Label {
                    id: badgeLabel
                    objectName: "fitBadgeLabel"
                    anchors.centerIn: parent
                    text: badge.fits ? qsTr("Fits your GPU") : qsTr("Too large for your GPU")
                    color: badge.fits ? card.theme.success : card.theme.error
                    font.pointSize: card.theme.fontCaption
                    font.weight: Font.DemiBold
                }
                HoverHandler { id: badgeHover }
                ToolTip.visible: badgeHover.hovered && (card.modelData.fitText || "").length > 0
                ToolTip.text: card.modelData.fitText || ""
                Accessible.role: Accessible.StaticText
                Accessible.name: badgeLabel.text
                Accessible.description: card.modelData.fitText || ""
            }
            Label {
                objectName: "modelState"
                visible: text.length > 0
                text: card.state_ === "installed" ? qsTr("On disk")
                    : card.state_ === "downloading" ? qsTr("Downloading")
                    : card.state_ === "paused" ? qsTr("Paused")
                    : card.state_ === "failed" ? qsTr("Failed") : ""
                color: card.state_ === "failed" ? card.theme.error : card.theme.mutedText
                font.pointSize: card.theme.fontSmall
            }
        }
        Label {
            objectName: "modelDescription"
            Layout.fillWidth: true
            visible: text.length > 0
            wrapMode: Text.Wrap
            text: card.modelData.description || ""
            color: card.theme.text
        }
        Label {
            objectName: "modelFacts"
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            color: card.theme.mutedText
            font.pointSize: card.theme.fontSmall
            // What the model is (issue 27): "2.4 B parameters · bitnet-25 architecture · I2_S weights · ...";
            // unknown facts are left out.
            text: [card.modelData.parametersText ? qsTr("%1 parameters").arg(card.modelData.parametersText) : "",
                   card.modelData.architecture ? qsTr("%1 architecture").arg(card.modelData.architecture) : "",
                   card.modelData.quantization ? qsTr("%1 weights").arg(card.modelData.quantization) : "",
                   card.modelData.sizeText || "",
                   card.modelData.contextLength ? qsTr("%1 tokens of context").arg(card.modelData.contextLength) : "",
                   card.modelData.license ? qsTr("licence: %1").arg(card.modelData.license) : "",
                   card.modelData.fitText || ""]
                  .filter(s => s && s.length > 0).join(" · ")
        }

        // Where an installed model is, with a way to it in the file manager.
        RowLayout {
            Layout.fillWidth: true
            visible: card.state_ === "installed" && (card.modelData.path || "").length > 0
            spacing: card.theme.spaceXs
            Label {
                objectName: "modelPath"
                Layout.fillWidth: true
                text: card.modelData.path || ""
                elide: Text.ElideMiddle
                color: card.theme.mutedText
                font.family: card.theme.monoFamily
                font.pointSize: card.theme.fontCaption
            }
            IconButton {
                objectName: "showFileButton"
                theme: card.theme
                iconName: "folder"
                toolTipText: qsTr("Show in the file manager")
                onClicked: card.showFileRequested()
            }
        }

        // The download: the bar, then what arrived, how fast and how long it will take.
        ProgressBar {
            id: progress
            objectName: "modelProgress"
            Layout.fillWidth: true
            Layout.topMargin: card.theme.spaceXs
            visible: card.transferring
            from: 0
            to: 100
            value: card.modelData.percent >= 0 ? card.modelData.percent : 0
            indeterminate: card.state_ === "downloading" && !(card.modelData.percent >= 0)
            Accessible.name: qsTr("Download of %1").arg(card.modelData.name || "")
            // A slim bar in the theme's colours; a paused download's bar is muted.
            background: Rectangle {
                implicitHeight: 6
                radius: 3
                color: card.theme.hover
            }
            contentItem: Item {
                implicitHeight: 6
                Rectangle {
                    id: bar
                    height: parent.height
                    radius: 3
                    color: card.state_ === "paused" ? card.theme.mutedText : card.theme.accent
                    width: progress.indeterminate ? parent.width * 0.3 : parent.width * progress.visualPosition
                    // While the size is unknown, a chunk sweeps across (standing still with "Reduce motion").
                    NumberAnimation on x {
                        running: progress.indeterminate && progress.visible && !card.theme.reduceMotion
                        loops: Animation.Infinite
                        from: 0
                        to: bar.parent.width * 0.7
                        duration: 1200
                    }
                }
            }
        }
        RowLayout {
            Layout.fillWidth: true
            visible: card.transferring
            spacing: card.theme.spaceL
            Label {
                objectName: "modelReceived"
                Layout.fillWidth: true
                text: (card.modelData.percent >= 0 ? Math.floor(card.modelData.percent) + "% · " : "")
                      + (card.modelData.receivedText || "")
                color: card.theme.text
                font.pointSize: card.theme.fontSmall
                elide: Text.ElideRight
            }
            Label {
                objectName: "modelSpeed"
                visible: text.length > 0
                text: card.modelData.speedText || ""
                color: card.theme.mutedText
                font.pointSize: card.theme.fontSmall
            }
            Label {
                objectName: "modelTimeLeft"
                visible: text.length > 0
                text: card.modelData.timeLeftText || ""
                color: card.theme.mutedText
                font.pointSize: card.theme.fontSmall
            }
        }
        Label {
            objectName: "modelMessage"
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            visible: text.length > 0
            // A failure in words, or the state's own line ("Paused at 3 MiB."); not the download's
            // moment-to-moment status, which the figures above already show.
            text: card.state_ === "downloading" ? "" : (card.modelData.message || "")
            color: card.state_ === "failed" ? card.theme.error : card.theme.mutedText
            font.pointSize: card.theme.fontSmall
        }

        RowLayout {
            Layout.alignment: Qt.AlignRight
            Layout.topMargin: card.theme.spaceXs
            spacing: card.theme.spaceXs
            IconButton {
                objectName: "downloadButton"
                theme: card.theme
                outlined: true
                // (A file of the folder that the catalogue does not list cannot be downloaded again.)
                visible: (card.state_ === "available" || card.state_ === "failed") && card.modelData.inCatalog !== false
                iconName: card.state_ === "failed" ? "view-refresh" : "folder-download"
                text: card.state_ === "failed" ? qsTr("Try again") : qsTr("Download")
                Accessible.name: qsTr("Download %1").arg(card.modelData.name || "")
                onClicked: card.downloadRequested()
            }
            IconButton {
                objectName: "pauseButton"
                theme: card.theme
                outlined: true
                visible: card.state_ === "downloading"
                iconName: "media-playback-pause"
                text: qsTr("Pause")
                onClicked: card.pauseRequested()
            }
            IconButton {
                objectName: "resumeButton"
                theme: card.theme
                outlined: true
                visible: card.state_ === "paused"
                iconName: "media-playback-start"
                text: qsTr("Resume")
                onClicked: card.resumeRequested()
            }
            IconButton {
                objectName: "cancelButton"
                theme: card.theme
                visible: card.transferring
                iconName: "window-close"
                text: qsTr("Cancel")
                onClicked: card.cancelRequested()
            }
            IconButton {
                objectName: "removeButton"
                theme: card.theme
                visible: card.state_ === "installed" || (card.state_ === "failed" && card.modelData.inCatalog === false)
                iconName: "user-trash"
                text: qsTr("Remove…")
                onClicked: card.removeRequested()
            }
            IconButton {
                objectName: "useButton"
                theme: card.theme
                filled: true
                visible: card.state_ === "installed" && (card.modelData.path || "").length > 0
                iconName: "go-next"
                text: qsTr("Use")
                Accessible.name: qsTr("Chat with %1").arg(card.modelData.name || "")
                onClicked: card.useRequested()
            }
        }
    }
}
