import QtQuick
import QtQuick.Controls
import QtQuick.Controls.impl
import QtQuick.Layouts

// The first start (no model on disk, none being opened): what Trit is in two lines, the GPU it found (or
// why none), and one button that downloads the model recommended for that GPU, shows the progress,
// loads it and hands over to the composer (`ready`). The model manager and a file of one's own stay a
// click away. It shows state and emits requests; Main.qml wires them to the bridges.
Item {
    id: root
    objectName: "firstRun"
    property ChatTheme theme: ChatTheme {}
    property string gpuSummary: ""    // "NVIDIA ...: 7.5 GiB of 8 GiB GPU memory free."; "" while asking
    property string gpuError: ""      // why no GPU memory figure could be had
    // ModelManagerBridge.recommendedModel: { id, name, sizeText, parametersText, license, fitText, ... },
    // empty when none fits.
    property var recommended: ({})
    // The recommended model's live row (entries()): state "available", "downloading", "paused",
    // "installed" or "failed", percent, progressText, message, path.
    property var entry: null
    property string engineState: "noModel"
    property string engineError: ""
    // The button was pressed: from here on the flow runs to a loaded model.
    property bool started: false

    signal downloadRequested(string id)
    signal loadRequested(string path)
    signal manageModelsRequested()
    signal openFileRequested()
    signal ready()   // the model is loaded: the composer takes over

    readonly property bool hasRecommendation: recommended !== undefined && recommended !== null
                                              && recommended.id !== undefined
    readonly property string entryState: entry ? (entry.state || "available") : "available"
    // Where the flow is: "offer", "downloading", "failed", "loading", "error".
    readonly property string phase: {
        if (!started)
            return "offer"
        if (entryState === "downloading" || entryState === "paused")
            return "downloading"
        if (entryState === "failed")
            return "failed"
        if (engineState === "error")
            return "error"
        return "loading"   // installed: being opened
    }

    function start() {
        if (!hasRecommendation)
            return
        started = true
        loadAsked = false
        if (entryState === "installed")
            requestLoad()
        else
            downloadRequested(recommended.id)
    }
    property bool loadAsked: false
    function requestLoad() {
        if (loadAsked || !entry || !entry.path)
            return
        loadAsked = true
        loadRequested(entry.path)
    }
    onEntryStateChanged: if (started && entryState === "installed") requestLoad()
    onEngineStateChanged: if (started && engineState === "ready") ready()

    ColumnLayout {
        anchors.centerIn: parent
        width: Math.min(parent.width - 2 * root.theme.spaceXl, 560)
        spacing: root.theme.spaceM

        Label {
            objectName: "welcomeHeading"
            Layout.fillWidth: true
            text: qsTr("Welcome to Trit")
            font.pointSize: root.theme.fontHeadline
            font.weight: Font.DemiBold
            color: root.theme.text
            Accessible.role: Accessible.Heading
        }
        Label {
            objectName: "welcomeText"
            Layout.fillWidth: true
            wrapMode: Text.Wrap
            text: qsTr("Trit chats with ternary (1.58-bit) language models on your own graphics card.")
                  + "\n" + qsTr("Private and offline: nothing you write leaves this computer.")
            color: root.theme.mutedText
            font.pointSize: root.theme.fontSubtitle
            lineHeight: 1.15
        }

        // The GPU, or why there is none.
        RowLayout {
            Layout.fillWidth: true
            Layout.topMargin: root.theme.spaceS
            spacing: root.theme.spaceS
            IconImage {
                source: root.theme.icon(root.gpuError.length > 0 ? "dialog-warning" : "drive-harddisk")
                sourceSize.width: 16
                sourceSize.height: 16
                color: root.gpuError.length > 0 ? root.theme.warning : root.theme.mutedText
            }
            Label {
                objectName: "gpuLine"
                Layout.fillWidth: true
                wrapMode: Text.Wrap
                text: root.gpuError.length > 0
                      ? qsTr("No GPU found: %1 Trit can still run on the processor, slowly (Settings → Engine).").arg(root.gpuError)
                      : root.gpuSummary.length > 0 ? root.gpuSummary : qsTr("Looking for your GPU…")
                color: root.gpuError.length > 0 ? root.theme.warning : root.theme.text
            }
        }

        // The recommended model and the one button.
        Rectangle {
            objectName: "recommendedCard"
            Layout.fillWidth: true
            implicitHeight: card.implicitHeight + 2 * root.theme.spaceL
            radius: root.theme.radiusL
            color: root.theme.surface
            border.color: root.theme.border

            ColumnLayout {
                id: card
                anchors.fill: parent
                anchors.margins: root.theme.spaceL
                spacing: root.theme.spaceS

                Label {
                    objectName: "recommendedName"
                    Layout.fillWidth: true
                    visible: root.hasRecommendation
                    text: root.hasRecommendation ? qsTr("Recommended: %1").arg(root.recommended.name) : ""
                    font.pointSize: root.theme.fontSubtitle
                    font.weight: Font.DemiBold
                    color: root.theme.text
                    elide: Text.ElideRight
                }
                Label {
                    objectName: "recommendedFacts"
                    Layout.fillWidth: true
                    visible: root.hasRecommendation
                    wrapMode: Text.Wrap
                    text: !root.hasRecommendation ? ""
                          : [root.recommended.sizeText,
                             root.recommended.parametersText ? qsTr("%1 parameters").arg(root.recommended.parametersText) : "",
                             root.recommended.fitText || "",
                             root.recommended.license ? qsTr("licence: %1").arg(root.recommended.license) : ""]
                            .filter(s => s && s.length > 0).join(" · ")
                    color: root.theme.mutedText
                    font.pointSize: root.theme.fontSmall
                }
                Label {
                    objectName: "noRecommendation"
                    Layout.fillWidth: true
                    visible: !root.hasRecommendation
                    wrapMode: Text.Wrap
                    text: qsTr("None of the catalogue's models is known to fit this GPU's free memory. The model manager shows each model's needs.")
                    color: root.theme.text
                }

                ProgressBar {
                    objectName: "firstRunProgress"
                    Layout.fillWidth: true
                    visible: root.phase === "downloading" || root.phase === "loading"
                    from: 0
                    to: 100
                    value: root.entry && root.entry.percent >= 0 ? root.entry.percent : 0
                    indeterminate: root.phase === "loading" || !(root.entry && root.entry.percent >= 0)
                    Accessible.name: root.phase === "loading" ? qsTr("Loading the model") : qsTr("Downloading the model")
                }
                Label {
                    objectName: "firstRunStatus"
                    Layout.fillWidth: true
                    visible: text.length > 0
                    wrapMode: Text.Wrap
                    text: {
                        switch (root.phase) {
                        case "downloading": return root.entry && root.entry.progressText ? root.entry.progressText
                                                                                         : qsTr("Starting the download…")
                        case "loading": return qsTr("Loading the model onto the GPU…")
                        case "failed": return root.entry && root.entry.message ? root.entry.message : qsTr("The download failed.")
                        case "error": return root.engineError
                        default: return ""
                        }
                    }
                    color: root.phase === "failed" || root.phase === "error" ? root.theme.error : root.theme.mutedText
                    font.pointSize: root.theme.fontSmall
                }

                IconButton {
                    objectName: "firstRunButton"
                    Layout.topMargin: root.theme.spaceXs
                    Layout.maximumWidth: card.width  // a narrow window elides the model's name
                    theme: root.theme
                    filled: true
                    implicitHeight: 40
                    visible: root.hasRecommendation && (root.phase === "offer" || root.phase === "failed" || root.phase === "error")
                    iconName: root.phase === "offer" ? "folder-download" : "view-refresh"
                    text: root.phase !== "offer" ? qsTr("Try again")
                          : root.entryState === "installed" ? qsTr("Start with %1").arg(root.hasRecommendation ? root.recommended.name : "")
                          : qsTr("Download %1 and start").arg(root.hasRecommendation ? root.recommended.name : "")
                    font.pointSize: root.theme.fontBody
                    font.weight: Font.DemiBold
                    onClicked: root.start()
                }
            }
        }

        // Side by side, or one above the other where the window is narrow.
        GridLayout {
            Layout.alignment: Qt.AlignLeft
            columns: parent.width >= manageButton.implicitWidth + openButton.implicitWidth + columnSpacing ? 2 : 1
            columnSpacing: root.theme.spaceS
            rowSpacing: 0
            IconButton {
                id: manageButton
                objectName: "firstRunManageButton"
                theme: root.theme
                iconName: "drive-harddisk"
                text: qsTr("Choose another model…")
                onClicked: root.manageModelsRequested()
            }
            IconButton {
                id: openButton
                objectName: "firstRunOpenFileButton"
                theme: root.theme
                iconName: "document-open"
                text: qsTr("Open a model file…")
                onClicked: root.openFileRequested()
            }
        }
    }
}
