import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// The engine at a glance: model, device and its memory, context use, the local API server when it is
// on, and the live readouts: prompt progress with prompt tokens/s, then smoothed tokens/s with a
// sparkline while a reply streams.
Pane {
    id: bar
    property var engine: null
    property var chat: null
    property var apiServer: null  // ApiServer: shown while it is on (its URL, or what went wrong)
    property ChatTheme theme: ChatTheme {}
    padding: theme.spaceXs
    leftPadding: theme.spaceL
    rightPadding: theme.spaceL
    background: Rectangle {
        color: bar.theme.window
        Rectangle { width: parent.width; height: 1; color: bar.theme.border }
    }

    readonly property string phase: chat ? chat.phase : "idle"
    readonly property string engineState: engine ? engine.state : "noModel"

    RowLayout {
        anchors.fill: parent
        spacing: 12

        Label {
            objectName: "modelLabel"
            text: {
                switch (bar.engineState) {
                case "ready": return qsTr("%1 on %2").arg(bar.engine.modelName).arg(bar.engine.deviceName)
                case "loading": return qsTr("Loading %1…").arg(bar.engine.loadingPath)
                case "error": return qsTr("The model could not be loaded")
                default: return qsTr("No model")
                }
            }
            elide: Text.ElideMiddle
            Layout.maximumWidth: 360
            color: bar.engineState === "error" ? bar.theme.error : bar.theme.text
            font.pointSize: bar.theme.fontCaption
        }
        Label {
            objectName: "memoryLabel"
            visible: bar.engineState === "ready" && text.length > 0
            text: bar.engine ? bar.engine.memoryText : ""
            color: bar.theme.mutedText
            font.pointSize: bar.theme.fontCaption
        }
        Label {
            objectName: "contextLabel"
            visible: bar.engineState === "ready" && bar.chat !== null
            text: bar.chat && bar.engine ? qsTr("context %1 / %2").arg(bar.chat.contextUsed).arg(bar.engine.contextLength) : ""
            color: bar.chat && bar.chat.contextFull ? bar.theme.warning : bar.theme.mutedText
            font.pointSize: bar.theme.fontCaption
        }
        Label {
            objectName: "apiServerLabel"
            readonly property string serverState: bar.apiServer ? bar.apiServer.state : "off"
            visible: serverState !== "off"
            text: serverState === "listening" ? qsTr("API: %1").arg(bar.apiServer.url)
                                              : qsTr("API server: %1").arg(bar.apiServer ? bar.apiServer.statusText : "")
            elide: Text.ElideRight
            Layout.maximumWidth: 320
            color: serverState === "error" ? bar.theme.error : bar.theme.mutedText
            font.pointSize: bar.theme.fontCaption
            ToolTip.visible: apiHover.hovered && bar.apiServer !== null
            ToolTip.text: bar.apiServer ? bar.apiServer.statusText : ""
            HoverHandler { id: apiHover }
        }
        Item { Layout.fillWidth: true }

        // Reading the prompt.
        ProgressBar {
            objectName: "promptProgress"
            visible: bar.phase === "prompt"
            // A fraction, so the value is never clamped against a total that has not arrived yet.
            from: 0
            to: 1
            value: bar.chat && bar.chat.promptTotal > 0 ? bar.chat.promptDone / bar.chat.promptTotal : 0
            indeterminate: !bar.chat || bar.chat.promptTotal === 0
            Layout.preferredWidth: 120
            Accessible.name: qsTr("Reading the prompt")
        }
        Label {
            objectName: "promptRateLabel"
            visible: bar.phase === "prompt"
            text: bar.chat ? qsTr("prompt %1/%2 · %3 t/s").arg(bar.chat.promptDone).arg(bar.chat.promptTotal)
                                                       .arg(bar.theme.rate(bar.chat.promptTokensPerSecond)) : ""
            font.pointSize: bar.theme.fontCaption
            color: bar.theme.text
        }
        // Writing the reply.
        ChatSparkline {
            objectName: "liveSparkline"
            visible: bar.phase === "reply"
            values: bar.chat ? bar.chat.speedHistory : []
            color: bar.theme.sparkline
            Layout.preferredWidth: 80
            Layout.preferredHeight: 16
        }
        Label {
            objectName: "speedLabel"
            visible: bar.phase === "reply"
            text: bar.chat ? qsTr("%1 t/s · %2 tokens").arg(bar.theme.rate(bar.chat.tokensPerSecond)).arg(bar.chat.replyTokens) : ""
            font.pointSize: bar.theme.fontCaption
            font.family: bar.theme.monoFamily
            color: bar.theme.text
            Accessible.name: qsTr("Generation speed: %1").arg(text)
        }
    }
}
