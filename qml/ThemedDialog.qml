import QtQuick
import QtQuick.Controls

// The frame of every dialog of the window: modal over a dimmed window (the theme's scrim), a rounded
// surface with the title in the type scale's title size, and a short fade in that "Reduce motion"
// turns off.
Dialog {
    id: dialog
    property ChatTheme theme: ChatTheme {}
    readonly property alias fadeIn: fadeInAnimation    // tests read its duration

    modal: true
    dim: true
    anchors.centerIn: parent
    padding: theme.spaceL
    topPadding: theme.spaceS
    font.pointSize: theme.fontBody

    Overlay.modal: Rectangle {
        objectName: "dialogScrim"
        color: dialog.theme.scrim
        Behavior on opacity { NumberAnimation { duration: dialog.theme.durationNormal } }
    }
    background: Rectangle {
        color: dialog.theme.surface
        radius: dialog.theme.radiusL
        border.color: dialog.theme.border
    }
    header: Label {
        objectName: "dialogTitle"
        text: dialog.title
        visible: text.length > 0
        font.pointSize: dialog.theme.fontTitle
        font.weight: Font.DemiBold
        color: dialog.theme.text
        elide: Text.ElideRight
        padding: dialog.theme.spaceL
        bottomPadding: dialog.theme.spaceXs
        Accessible.role: Accessible.Heading
    }
    footer: DialogButtonBox {
        visible: count > 0
        padding: dialog.theme.spaceM
        background: Item {}
    }
    enter: Transition {
        NumberAnimation { id: fadeInAnimation; property: "opacity"; from: 0; to: 1; duration: dialog.theme.durationNormal; easing.type: Easing.OutCubic }
        NumberAnimation { property: "scale"; from: 0.97; to: 1; duration: dialog.theme.durationNormal; easing.type: Easing.OutCubic }
    }
    // Closing takes effect at once: no veil lingers over the window to swallow the next click.
    exit: Transition {
        NumberAnimation { property: "opacity"; from: 1; to: 0; duration: 0 }
    }
}
