import QtQuick
import QtQuick.Controls
import QtQuick.Controls.impl
import QtQuick.Dialogs
import QtQuick.Layouts

// The model manager, a page of the window in place of the chat (the sidebar stays): the GPU the fit is
// judged for, the models on disk with their folder, then the catalogue's other models, one card each
// (ModelCard.qml) with download, pause, resume and cancel; import of a .gguf by the button's file dialog
// or a drop anywhere on the page; removal after confirmation. It shows state and emits requests; Main.qml
// wires them to the bridge (app/src/models), which feeds `entries`.
Item {
    id: root
    objectName: "modelManagerPage"
    property ChatTheme theme: ChatTheme {}

    // The rows: ModelListModel (each row's `modelData` is the plain map ModelCard describes) or, in tests,
    // an array of such maps. state is one of "available", "downloading", "paused", "installed", "failed".
    property var entries: []
    property string modelsFolder: ""
    property string gpuSummary: ""   // "NVIDIA ...: 7.5 GiB of 8 GiB GPU memory free."; "" while asking
    property string gpuError: ""     // why the GPU's memory is unknown
    property bool importing: false
    property string notice: ""       // the last import, download or removal problem, shown at the top

    signal backRequested()
    signal downloadRequested(string id)
    // After a download stopped at another file of the same name (askExistingFile): the user's choice,
    // "keep-both" or "replace" (the latter only after a second confirmation).
    signal downloadChoiceMade(string id, string existing)
    signal pauseRequested(string id)
    signal resumeRequested(string id)
    signal cancelRequested(string id)
    signal removeRequested(string id)       // only after the user confirmed
    signal importRequested(var fileUrls)    // local .gguf files (URLs), validated by the engine before use
    signal useRequested(string id, string path)  // load this installed model into the chat
    signal openFolderRequested(url folder)  // show a folder in the file manager

    // Splits dropped or chosen files (URLs or plain paths) into GGUF files to import, as file URLs, and a
    // notice naming the rest.
    function handleFiles(urls) {
        const ggufs = []
        const rejected = []
        for (let i = 0; i < urls.length; ++i) {
            let u = urls[i].toString()
            if (u.startsWith("/"))
                u = "file://" + encodeURI(u)
            if (u.startsWith("file:") && u.toLowerCase().endsWith(".gguf"))
                ggufs.push(u)
            else
                rejected.push(decodeURIComponent(u.substring(u.lastIndexOf("/") + 1)))
        }
        notice = rejected.length > 0 ? qsTr("Not a GGUF model file: %1").arg(rejected.join(", ")) : ""
        if (ggufs.length > 0)
            importRequested(ggufs)
        return ggufs.length
    }

    // The download of `id` found a different file named `fileName` in the folder and kept it.
    function askExistingFile(id, name, fileName) {
        existingFile.modelId = id
        existingFile.modelName = name
        existingFile.fileName = fileName
        existingFile.open()
    }

    function askRemove(id, name) {
        confirmRemove.modelId = id
        confirmRemove.modelName = name
        confirmRemove.open()
    }

    // Scrolls just enough to show the whole card of `id` (a download started elsewhere, the
    // screenshots); false if there is none.
    function reveal(id) {
        const card = cardFor(id)
        if (!card)
            return false
        const flick = scroll.contentItem as Flickable
        const top = card.mapToItem(flick.contentItem, 0, 0).y - root.theme.spaceM
        const bottom = top + card.height + 2 * root.theme.spaceM
        if (bottom > flick.contentY + flick.height)
            flick.contentY = Math.min(bottom - flick.height, flick.contentHeight - flick.height)
        if (top < flick.contentY)
            flick.contentY = Math.max(0, top)
        return true
    }

    function folderUrl(path) { return "file://" + encodeURI(path) }
    function parentFolder(path) { return path.substring(0, path.lastIndexOf("/")) || "/" }

    property int installedCount: 0   // models on disk (ModelManagerBridge.installedCount)

    // The card of model `id` in whichever section it is shown (tests and keyboard focus).
    function cardFor(id) {
        for (const repeater of [installedRepeater, catalogRepeater]) {
            for (let i = 0; i < repeater.count; ++i) {
                const card = repeater.itemAt(i)
                if (card && card.visible && card.modelData.id === id)
                    return card
            }
        }
        return null
    }

    ColumnLayout {
        anchors.fill: parent
        spacing: 0

        // The page's bar, as tall as the chat's header: back, title, import.
        Rectangle {
            Layout.fillWidth: true
            implicitHeight: 48
            color: root.theme.window
            RowLayout {
                anchors.fill: parent
                anchors.leftMargin: root.theme.spaceS
                anchors.rightMargin: root.theme.spaceM
                spacing: root.theme.spaceS
                IconButton {
                    objectName: "backButton"
                    theme: root.theme
                    iconName: "go-previous"
                    toolTipText: qsTr("Back to the chat (Esc)")
                    onClicked: root.backRequested()
                }
                Label {
                    objectName: "pageTitle"
                    Layout.fillWidth: true
                    text: qsTr("Models")
                    font.pointSize: root.theme.fontTitle
                    font.weight: Font.DemiBold
                    color: root.theme.text
                    Accessible.role: Accessible.Heading
                }
                BusyIndicator {
                    objectName: "importBusy"
                    visible: root.importing
                    running: visible
                    implicitWidth: 24
                    implicitHeight: 24
                }
                IconButton {
                    objectName: "importButton"
                    theme: root.theme
                    outlined: true
                    iconName: "document-open"
                    text: qsTr("Import…")
                    Accessible.name: qsTr("Import a .gguf model file")
                    onClicked: fileDialog.open()
                }
            }
            Rectangle { anchors.bottom: parent.bottom; width: parent.width; height: 1; color: root.theme.border }
        }

        ScrollView {
            id: scroll
            objectName: "modelScroll"
            Layout.fillWidth: true
            Layout.fillHeight: true
            contentWidth: availableWidth
            clip: true

            ColumnLayout {
                id: content
                x: Math.max(root.theme.spaceXl, (scroll.availableWidth - width) / 2)
                width: Math.min(scroll.availableWidth - 2 * root.theme.spaceXl, root.theme.readingWidth)
                spacing: root.theme.spaceM

                Item { implicitHeight: root.theme.spaceS }

                // The GPU the fit badges are judged for, or why it is unknown.
                RowLayout {
                    Layout.fillWidth: true
                    spacing: root.theme.spaceS
                    IconImage {
                        Layout.alignment: Qt.AlignTop
                        Layout.topMargin: 2
                        Layout.preferredWidth: 16
                        Layout.preferredHeight: 16
                        source: root.theme.icon(root.gpuError.length > 0 ? "dialog-warning" : "drive-harddisk")
                        sourceSize.width: 16
                        sourceSize.height: 16
                        color: root.gpuError.length > 0 ? root.theme.warning : root.theme.mutedText
                    }
                    Label {
                        objectName: "gpuLine"
                        Layout.fillWidth: true
                        wrapMode: Text.Wrap
                        text: root.gpuError.length > 0 ? qsTr("Which models fit is unknown: %1").arg(root.gpuError)
                              : root.gpuSummary.length > 0 ? root.gpuSummary : qsTr("Looking for your GPU…")
                        color: root.gpuError.length > 0 ? root.theme.warning : root.theme.mutedText
                    }
                }

                Rectangle {
                    objectName: "modelNotice"
                    Layout.fillWidth: true
                    visible: root.notice.length > 0
                    implicitHeight: noticeRow.implicitHeight + 2 * root.theme.spaceS
                    radius: root.theme.radiusM
                    color: root.theme.errorBackground
                    RowLayout {
                        id: noticeRow
                        anchors.fill: parent
                        anchors.margins: root.theme.spaceS
                        anchors.leftMargin: root.theme.spaceM
                        Label {
                            objectName: "modelNoticeText"
                            Layout.fillWidth: true
                            wrapMode: Text.Wrap
                            color: root.theme.error
                            text: root.notice
                        }
                        IconButton {
                            objectName: "dismissNoticeButton"
                            theme: root.theme
                            iconName: "window-close"
                            toolTipText: qsTr("Dismiss")
                            onClicked: root.notice = ""
                        }
                    }
                }

                // ---- On this computer ----
                Label {
                    objectName: "installedHeading"
                    Layout.topMargin: root.theme.spaceS
                    text: qsTr("On this computer")
                    font.pointSize: root.theme.fontSubtitle
                    font.weight: Font.DemiBold
                    color: root.theme.text
                    Accessible.role: Accessible.Heading
                }
                RowLayout {
                    Layout.fillWidth: true
                    spacing: root.theme.spaceXs
                    Label {
                        objectName: "modelsFolderLabel"
                        Layout.fillWidth: true
                        elide: Text.ElideMiddle
                        text: qsTr("Models folder: %1").arg(root.modelsFolder)
                        color: root.theme.mutedText
                        font.pointSize: root.theme.fontSmall
                    }
                    IconButton {
                        objectName: "openFolderButton"
                        theme: root.theme
                        iconName: "folder"
                        text: qsTr("Open folder")
                        enabled: root.modelsFolder.length > 0
                        onClicked: root.openFolderRequested(root.folderUrl(root.modelsFolder))
                    }
                }
                Repeater {
                    id: installedRepeater
                    model: root.entries
                    delegate: ModelCard {
                        objectName: "installedCard_" + modelData.id
                        Layout.fillWidth: true
                        theme: root.theme
                        // Installed models, and files of the folder the engine cannot open (to remove).
                        visible: modelData.state === "installed" || modelData.inCatalog === false
                        onUseRequested: root.useRequested(modelData.id, modelData.path)
                        onRemoveRequested: root.askRemove(modelData.id, modelData.name)
                        onShowFileRequested: root.openFolderRequested(root.folderUrl(root.parentFolder(modelData.path)))
                    }
                }
                Label {
                    objectName: "noModelsYet"
                    Layout.fillWidth: true
                    visible: root.installedCount === 0
                    wrapMode: Text.Wrap
                    text: qsTr("No models yet. Download one below, or drop a .gguf file anywhere on this page.")
                    color: root.theme.mutedText
                }

                // ---- The catalogue's other models ----
                Label {
                    objectName: "catalogHeading"
                    Layout.topMargin: root.theme.spaceL
                    text: qsTr("Available to download")
                    font.pointSize: root.theme.fontSubtitle
                    font.weight: Font.DemiBold
                    color: root.theme.text
                    Accessible.role: Accessible.Heading
                }
                Repeater {
                    id: catalogRepeater
                    model: root.entries
                    delegate: ModelCard {
                        objectName: "catalogCard_" + modelData.id
                        Layout.fillWidth: true
                        theme: root.theme
                        visible: modelData.state !== "installed" && modelData.inCatalog !== false
                        onDownloadRequested: root.downloadRequested(modelData.id)
                        onPauseRequested: root.pauseRequested(modelData.id)
                        onResumeRequested: root.resumeRequested(modelData.id)
                        onCancelRequested: root.cancelRequested(modelData.id)
                    }
                }
                Label {
                    objectName: "dropHint"
                    Layout.fillWidth: true
                    Layout.bottomMargin: root.theme.spaceXl
                    wrapMode: Text.Wrap
                    text: qsTr("Have a .gguf file already? Drop it here or use Import…: Trit checks that it can run it, then copies it into the models folder.")
                    color: root.theme.mutedText
                    font.pointSize: root.theme.fontSmall
                }
            }
        }
    }

    // A file manager's drop anywhere on the page imports; while one hovers, the page says so.
    DropArea {
        id: dropArea
        objectName: "modelDropArea"
        anchors.fill: parent
        keys: ["text/uri-list"]
        onDropped: drop => {
            if (drop.hasUrls)
                root.handleFiles(drop.urls)
            drop.accept()
        }
    }
    Rectangle {
        objectName: "dropVeil"
        anchors.fill: parent
        anchors.margins: root.theme.spaceS
        visible: dropArea.containsDrag
        radius: root.theme.radiusL
        color: Qt.rgba(root.theme.selected.r, root.theme.selected.g, root.theme.selected.b, 0.9)
        border.color: root.theme.accent
        border.width: 2
        Label {
            anchors.centerIn: parent
            text: qsTr("Drop to import into the models folder")
            font.pointSize: root.theme.fontTitle
            color: root.theme.text
        }
    }

    FileDialog {
        id: fileDialog
        title: qsTr("Import a GGUF model")
        fileMode: FileDialog.OpenFiles
        nameFilters: [qsTr("GGUF models (*.gguf)")]
        onAccepted: root.handleFiles(selectedFiles)
    }

    ThemedDialog {
        id: confirmRemove
        objectName: "confirmRemoveDialog"
        theme: root.theme
        parent: Overlay.overlay
        property string modelId: ""
        property string modelName: ""
        title: qsTr("Remove model?")
        width: 420  // explicit: Qt 6.4's DialogButtonBox otherwise loops on implicitWidth
        standardButtons: Dialog.Yes | Dialog.No
        Label {
            width: confirmRemove.availableWidth
            wrapMode: Text.WordWrap
            text: qsTr("%1 will be deleted from disk. You can download it again later.").arg(confirmRemove.modelName)
        }
        onAccepted: root.removeRequested(modelId)
    }

    ThemedDialog {
        id: existingFile
        objectName: "existingFileDialog"
        theme: root.theme
        parent: Overlay.overlay
        property string modelId: ""
        property string modelName: ""
        property string fileName: ""
        title: qsTr("A file named %1 is already there").arg(fileName)
        width: 480  // explicit, as for confirmRemove
        ColumnLayout {
            width: existingFile.availableWidth
            spacing: 12
            Label {
                Layout.fillWidth: true
                wrapMode: Text.WordWrap
                text: qsTr("The models folder already holds a different file named %1; it was kept and %2 was not downloaded. Keep both (your file is renamed), or replace your file with the download?")
                          .arg(existingFile.fileName).arg(existingFile.modelName)
            }
            RowLayout {
                Layout.alignment: Qt.AlignRight
                Button {
                    objectName: "keepBothButton"
                    text: qsTr("Keep both")
                    onClicked: {
                        existingFile.close()
                        root.downloadChoiceMade(existingFile.modelId, "keep-both")
                    }
                }
                Button {
                    objectName: "replaceButton"
                    text: qsTr("Replace…")
                    onClicked: {
                        existingFile.close()
                        confirmReplace.open()
                    }
                }
                Button {
                    objectName: "keepButton"
                    text: qsTr("Cancel")
                    onClicked: existingFile.close()
                }
            }
        }
    }

    ThemedDialog {
        id: confirmReplace
        objectName: "confirmReplaceDialog"
        theme: root.theme
        parent: Overlay.overlay
        title: qsTr("Replace your file?")
        width: 420
        standardButtons: Dialog.Yes | Dialog.No
        Label {
            width: confirmReplace.availableWidth
            wrapMode: Text.WordWrap
            text: qsTr("Your file %1 will be deleted from disk and replaced by the downloaded %2. This cannot be undone.")
                      .arg(existingFile.fileName).arg(existingFile.modelName)
        }
        onAccepted: root.downloadChoiceMade(existingFile.modelId, "replace")
    }
}
