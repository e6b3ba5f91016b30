import QtQuick
import QtQuick.Controls
import QtQuick.Controls.impl

// A flat button with an icon of qml/icons (and text, if given), in the theme's colours: a tinted
// background on hover and press, a ring on keyboard focus, and a tooltip that says what it does (also its
// accessible name). `filled` makes it the accent-coloured main action (the composer's send button),
// `outlined` a bordered one on a surface (the sidebar's "New chat").
ToolButton {
    id: control
    property ChatTheme theme: ChatTheme {}
    property string iconName: ""
    property string toolTipText: ""
    property bool filled: false
    property bool outlined: false
    property int alignment: Qt.AlignCenter   // of icon and text: the sidebar's rows align left

    icon.source: iconName.length > 0 ? theme.icon(iconName) : ""
    icon.width: 16
    icon.height: 16
    icon.color: filled ? theme.accentText : theme.text
    display: text.length > 0 ? AbstractButton.TextBesideIcon : AbstractButton.IconOnly
    font.pointSize: theme.fontSmall
    padding: theme.spaceXs + 2
    horizontalPadding: text.length > 0 ? theme.spaceM : theme.spaceXs + 2
    spacing: theme.spaceXs + 2
    opacity: enabled ? 1 : 0.45
    focusPolicy: Qt.StrongFocus
    Accessible.name: toolTipText.length > 0 ? toolTipText : text
    ToolTip.visible: toolTipText.length > 0 && hovered
    ToolTip.delay: 700
    ToolTip.text: toolTipText

    contentItem: IconLabel {
        spacing: control.spacing
        mirrored: control.mirrored
        display: control.display
        alignment: control.alignment
        icon: control.icon
        text: control.text
        font: control.font
        color: control.filled ? control.theme.accentText : control.theme.text
    }
    background: Rectangle {
        implicitWidth: 28
        implicitHeight: 28
        radius: control.theme.radiusS
        color: control.filled ? control.theme.accent
             : control.down || control.checked ? control.theme.pressed
             : control.hovered ? control.theme.hover
             : control.outlined ? control.theme.surface : "transparent"
        border.width: control.visualFocus ? 2 : control.outlined ? 1 : 0
        border.color: control.visualFocus ? (control.filled ? control.theme.text : control.theme.focusRing) : control.theme.border
        Behavior on color { ColorAnimation { duration: control.theme.durationFast } }
    }
}
