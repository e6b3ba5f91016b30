import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// What a finished reply cost: time to first token, prompt and generation speed, token counts, and the
// speed over the reply as a sparkline. Kept with the message.
RowLayout {
    id: statsRow
    property var stats: ({})
    property var speedHistory: []
    property string finishReason: ""
    property ChatTheme theme: ChatTheme {}
    spacing: 8

    readonly property string summary: {
        if (!stats || stats.generatedTokens === undefined)
            return ""
        const parts = [
            qsTr("TTFT %1").arg(theme.ms(stats.ttftMs)),
            qsTr("prompt %1 t/s").arg(theme.rate(stats.promptTokensPerSecond)),
            qsTr("%1 t/s").arg(theme.rate(stats.generationTokensPerSecond)),
            qsTr("%1 prompt + %2 generated tokens").arg(stats.promptTokens).arg(stats.generatedTokens)
        ]
        if (stats.reusedTokens > 0)
            parts.push(qsTr("%1 reused from cache").arg(stats.reusedTokens))
        return parts.join(" · ")
    }
    readonly property string reasonText: {
        switch (finishReason) {
        case "length": return qsTr("stopped at the length limit")
        case "cancelled": return qsTr("stopped")
        case "context_full": return qsTr("context full")
        case "interrupted": return qsTr("interrupted: Trit stopped while writing it")
        default: return ""
        }
    }

    Label {
        objectName: "statsLabel"
        text: statsRow.summary
        color: statsRow.theme.mutedText
        font.pointSize: statsRow.theme.fontCaption
        Accessible.name: qsTr("Reply statistics: %1").arg(text)
    }
    ChatSparkline {
        visible: statsRow.speedHistory && statsRow.speedHistory.length > 1
        values: statsRow.speedHistory
        color: statsRow.theme.sparkline
        Layout.preferredWidth: 60
        Layout.preferredHeight: 14
    }
    Label {
        visible: text.length > 0
        text: statsRow.reasonText
        color: statsRow.theme.warning
        font.pointSize: statsRow.theme.fontCaption
    }
}
