import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

// How much of the model's context the conversation uses: a bar and "1.2k / 4k", amber from 80 %, red
// when (nearly) full. The figures come from the chat controller (tokens of the conversation as the next
// prompt would send them) and the engine bridge (the context length the model was loaded with).
Item {
    id: meter
    objectName: "contextMeter"
    property ChatTheme theme: ChatTheme {}
    property int used: 0
    property int total: 0
    property bool full: false           // the controller's verdict: the next reply cannot start
    readonly property real fraction: total > 0 ? Math.min(1, Math.max(0, used / total)) : 0
    readonly property string level: full || fraction >= 0.95 ? "full" : fraction >= 0.8 ? "high" : "normal"
    readonly property color levelColor: level === "full" ? theme.error : level === "high" ? theme.warning : theme.accent

    // 980 -> "980", 1234 -> "1.2k", 40960 -> "41k"
    function compact(n) {
        if (n >= 10000)
            return qsTr("%1k").arg(Math.round(n / 1000))
        if (n >= 1000)
            return qsTr("%1k").arg((n / 1000).toFixed(1))
        return String(n)
    }

    visible: total > 0
    implicitWidth: row.implicitWidth
    implicitHeight: row.implicitHeight
    Accessible.role: Accessible.ProgressBar
    Accessible.name: toolTipText
    readonly property string toolTipText: qsTr("Context: %1 of %2 tokens used (%3 %)").arg(used).arg(total)
                                               .arg(Math.round(fraction * 100))

    HoverHandler { id: hover }
    ToolTip.visible: hover.hovered
    ToolTip.delay: 500
    ToolTip.text: toolTipText

    RowLayout {
        id: row
        anchors.fill: parent
        spacing: meter.theme.spaceS
        Rectangle {
            objectName: "contextTrack"
            Layout.preferredWidth: 72
            Layout.preferredHeight: 6
            radius: 3
            color: meter.theme.border
            Rectangle {
                objectName: "contextFill"
                width: parent.width * meter.fraction
                height: parent.height
                radius: 3
                color: meter.levelColor
                Behavior on width { NumberAnimation { duration: meter.theme.durationNormal } }
            }
        }
        Label {
            objectName: "contextMeterLabel"
            text: qsTr("%1 / %2").arg(meter.compact(meter.used)).arg(meter.compact(meter.total))
            color: meter.level === "normal" ? meter.theme.mutedText : meter.levelColor
            font.pointSize: meter.theme.fontCaption
        }
    }
}
