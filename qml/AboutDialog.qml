import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Trit.App

// About Trit: version, Qt version, the engine's precision, the Vulkan devices the engine sees (or why there is none) and the
// licences (Trit's, the BitNet b1.58 model's, third-party notices). The data comes from the C++
// AboutInfo (app/src/about/about_info.h), App.about unless given (app_services.h); without it (a bare
// QML load) the dialog still opens and says what is missing.
// Open it from Main.qml with:  AboutDialog { id: aboutDialog }  ...  aboutDialog.open()
ThemedDialog {
    id: dialog
    objectName: "aboutDialog"
    property var about: App.about
    title: qsTr("About Trit")
    standardButtons: Dialog.Close
    width: Math.min(640, parent ? parent.width - 40 : 640)
    height: Math.min(560, parent ? parent.height - 40 : 560)

    // Listing devices creates a Vulkan instance: done when the dialog opens, not at startup.
    onOpened: if (about) about.refreshDevices()

    ColumnLayout {
        anchors.fill: parent
        spacing: 8

        Label {
            objectName: "aboutVersion"
            text: dialog.about ? qsTr("Trit %1").arg(dialog.about.version) : qsTr("Trit")
            font.weight: Font.DemiBold
            font.pointSize: dialog.theme.fontTitle
            Accessible.role: Accessible.Heading
        }
        Label {
            text: qsTr("Private, offline chat with ternary (1.58-bit) language models.")
            wrapMode: Text.WordWrap
            Layout.fillWidth: true
        }
        Label {
            objectName: "aboutQtVersion"
            text: dialog.about ? qsTr("Qt %1").arg(dialog.about.qtVersion) : ""
            visible: text.length > 0
        }
        Label {
            objectName: "aboutPrecision"
            text: dialog.about ? qsTr("Precision: %1 activations").arg(dialog.about.precision) : ""
            visible: text.length > 0
        }

        TabBar {
            id: tabs
            Layout.fillWidth: true
            TabButton { text: qsTr("Devices") }
            Repeater {
                model: dialog.about ? dialog.about.licenses : []
                TabButton { required property var modelData; text: modelData.title }
            }
        }

        StackLayout {
            Layout.fillWidth: true
            Layout.fillHeight: true
            currentIndex: tabs.currentIndex

            ScrollView {
                clip: true
                TextArea {
                    objectName: "aboutDevices"
                    readOnly: true
                    wrapMode: TextEdit.Wrap
                    font.family: "monospace"
                    text: {
                        const a = dialog.about
                        if (!a) return qsTr("Device information is not available in this build.")
                        if (!a.devicesQueried) return qsTr("Looking for Vulkan devices…")
                        if (a.deviceError.length > 0) return qsTr("No Vulkan device: %1").arg(a.deviceError)
                        return a.devices.join("\n\n")
                    }
                    Accessible.name: qsTr("Vulkan devices")
                }
            }
            Repeater {
                model: dialog.about ? dialog.about.licenses : []
                ScrollView {
                    id: licenseView
                    required property var modelData
                    clip: true
                    TextArea {
                        readOnly: true
                        wrapMode: TextEdit.Wrap
                        font.family: "monospace"
                        text: licenseView.modelData.text
                        Accessible.name: licenseView.modelData.title
                    }
                }
            }
        }

        Button {
            text: qsTr("Copy version and device information")
            enabled: dialog.about !== null
            onClicked: {
                copyHelper.text = dialog.about.reportText()
                copyHelper.selectAll()
                copyHelper.copy()
            }
            TextEdit { id: copyHelper; visible: false }
        }
    }
}
