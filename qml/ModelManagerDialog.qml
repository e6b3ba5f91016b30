import QtQuick
import QtQuick.Controls
import QtQuick.Dialogs
import QtQuick.Layouts

// The model manager: the catalogue with each model's state, downloads with progress, pause, resume and
// cancel, import of a local GGUF (button or drag-and-drop) and removal after confirmation. It only
// shows state and emits requests; the C++ side (app/src/models) does the work and feeds `entries`.
ThemedDialog {
    id: root
    objectName: "modelManagerDialog"
    title: qsTr("Models")
    standardButtons: Dialog.Close
    width: Math.min(720, parent ? parent.width - 40 : 720)
    height: Math.min(560, parent ? parent.height - 40 : 560)

    // One object per model: { id, name, description, license, sizeText, state, percent, progressText,
    // message, architecture, parametersText, quantization (the weight format), contextLength, fits,
    // fitText, path } with state one of "available",
    // "downloading", "paused", "installed", "failed"; fits is true, false or undefined (GPU memory
    // unknown) and fitText says it with the figures ("fits (needs 1.6 GiB of 7.8 GiB free)").
    property var entries: []
    property string modelsFolder: ""
    property string notice: ""   // the last import or removal problem, shown above the list

    signal downloadRequested(string id)
    // After a download stopped at another file of the same name (askExistingFile): the user's choice,
    // "keep-both" or "replace" (the latter only after a second confirmation).
    signal downloadChoiceMade(string id, string existing)
    signal pauseRequested(string id)
    signal resumeRequested(string id)
    signal cancelRequested(string id)
    signal removeRequested(string id)       // only after the user confirmed
    signal importRequested(var fileUrls)    // local .gguf files, validated by the engine before use
    signal useRequested(string id, string path)  // load this installed model into the chat

    // Splits dropped or chosen URLs into GGUF files to import and a notice for the rest.
    function handleFiles(urls) {
        const ggufs = []
        const rejected = []
        for (let i = 0; i < urls.length; ++i) {
            const u = urls[i].toString()
            if (u.startsWith("file:") && u.toLowerCase().endsWith(".gguf")) ggufs.push(u)
            else rejected.push(decodeURIComponent(u.substring(u.lastIndexOf("/") + 1)))
        }
        notice = rejected.length > 0 ? qsTr("Not a GGUF model file: %1").arg(rejected.join(", ")) : ""
        if (ggufs.length > 0) importRequested(ggufs)
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

    contentItem: ColumnLayout {
        spacing: 8

        Label {
            objectName: "modelsFolderLabel"
            Layout.fillWidth: true
            elide: Text.ElideMiddle
            text: qsTr("Models folder: %1").arg(root.modelsFolder)
        }
        Label {
            objectName: "modelNotice"
            Layout.fillWidth: true
            visible: root.notice.length > 0
            wrapMode: Text.WordWrap
            color: root.theme.error
            text: root.notice
        }

        ListView {
            id: list
            objectName: "modelList"
            Layout.fillWidth: true
            Layout.fillHeight: true
            clip: true
            spacing: 6
            model: root.entries
            Accessible.role: Accessible.List

            delegate: Frame {
                id: card
                required property var modelData
                readonly property string state_: modelData.state || "available"
                objectName: "modelCard_" + modelData.id
                width: ListView.view.width
                padding: root.theme.spaceS
                background: Rectangle {
                    radius: root.theme.radiusM
                    color: root.theme.surface
                    border.color: root.theme.border
                }

                ColumnLayout {
                    anchors.fill: parent
                    spacing: 4
                    RowLayout {
                        Layout.fillWidth: true
                        Label {
                            text: card.modelData.name
                            font.weight: Font.DemiBold
                            Layout.fillWidth: true
                            elide: Text.ElideRight
                        }
                        Label {
                            objectName: "modelState"
                            text: card.state_ === "installed" ? qsTr("Installed")
                                : card.state_ === "downloading" ? qsTr("Downloading")
                                : card.state_ === "paused" ? qsTr("Paused")
                                : card.state_ === "failed" ? qsTr("Failed") : (card.modelData.sizeText || "")
                        }
                    }
                    Label {
                        Layout.fillWidth: true
                        wrapMode: Text.WordWrap
                        visible: text.length > 0
                        text: card.modelData.description || ""
                    }
                    Label {
                        objectName: "modelFacts"
                        Layout.fillWidth: true
                        wrapMode: Text.WordWrap
                        color: root.theme.mutedText
                        font.pointSize: root.theme.fontSmall
                        // What the model is (issue 27): "10.3 B parameters · llama architecture · I2_S weights".
                        text: [card.modelData.sizeText,
                               card.modelData.parametersText ? qsTr("%1 parameters").arg(card.modelData.parametersText) : "",
                               card.modelData.architecture ? qsTr("%1 architecture").arg(card.modelData.architecture) : "",
                               card.modelData.quantization ? qsTr("%1 weights").arg(card.modelData.quantization) : "",
                               card.modelData.contextLength ? qsTr("%1 tokens of context").arg(card.modelData.contextLength) : "",
                               // "fits (needs 1.6 GiB of 7.8 GiB free)" / "does not fit (...)" from the bridge
                               card.modelData.fitText ? card.modelData.fitText
                                   : card.modelData.fits === true ? qsTr("fits the GPU")
                                   : card.modelData.fits === false ? qsTr("does not fit the GPU") : "",
                               card.modelData.license ? qsTr("licence: %1").arg(card.modelData.license) : ""]
                              .filter(s => s && s.length > 0).join(" · ")
                    }
                    ProgressBar {
                        objectName: "modelProgress"
                        Layout.fillWidth: true
                        visible: card.state_ === "downloading" || card.state_ === "paused"
                        from: 0
                        to: 100
                        value: card.modelData.percent >= 0 ? card.modelData.percent : 0
                        indeterminate: card.state_ === "downloading" && !(card.modelData.percent >= 0)
                    }
                    Label {
                        objectName: "modelMessage"
                        Layout.fillWidth: true
                        wrapMode: Text.WordWrap
                        visible: text.length > 0
                        color: card.state_ === "failed" ? root.theme.error : root.theme.text
                        text: card.state_ === "downloading" && card.modelData.progressText ? card.modelData.progressText
                                                                                              : (card.modelData.message || "")
                    }
                    RowLayout {
                        Layout.alignment: Qt.AlignRight
                        Button {
                            objectName: "downloadButton"
                            visible: card.state_ === "available" || card.state_ === "failed"
                            text: card.state_ === "failed" ? qsTr("Try again") : qsTr("Download")
                            onClicked: root.downloadRequested(card.modelData.id)
                        }
                        Button {
                            objectName: "pauseButton"
                            visible: card.state_ === "downloading"
                            text: qsTr("Pause")
                            onClicked: root.pauseRequested(card.modelData.id)
                        }
                        Button {
                            objectName: "resumeButton"
                            visible: card.state_ === "paused"
                            text: qsTr("Resume")
                            onClicked: root.resumeRequested(card.modelData.id)
                        }
                        Button {
                            objectName: "cancelButton"
                            visible: card.state_ === "downloading" || card.state_ === "paused"
                            text: qsTr("Cancel")
                            onClicked: root.cancelRequested(card.modelData.id)
                        }
                        Button {
                            objectName: "useButton"
                            visible: card.state_ === "installed" && (card.modelData.path || "").length > 0
                            text: qsTr("Use")
                            onClicked: root.useRequested(card.modelData.id, card.modelData.path)
                        }
                        Button {
                            objectName: "removeButton"
                            visible: card.state_ === "installed"
                            text: qsTr("Remove…")
                            onClicked: root.askRemove(card.modelData.id, card.modelData.name)
                        }
                    }
                }
            }

            DropArea {
                objectName: "modelDropArea"
                anchors.fill: parent
                keys: ["text/uri-list"]
                onDropped: drop => {
                    if (drop.hasUrls) root.handleFiles(drop.urls)
                    drop.accept()
                }
            }
        }

        RowLayout {
            Layout.fillWidth: true
            Label {
                Layout.fillWidth: true
                wrapMode: Text.WordWrap
                text: qsTr("Drop a .gguf file here, or import one from disk.")
                opacity: 0.7
            }
            Button {
                objectName: "importButton"
                text: qsTr("Import…")
                onClicked: fileDialog.open()
            }
        }
    }

    FileDialog {
        id: fileDialog
        title: qsTr("Import a GGUF model")
        nameFilters: [qsTr("GGUF models (*.gguf)")]
        onAccepted: root.handleFiles([selectedFile])
    }

    ThemedDialog {
        theme: root.theme
        id: confirmRemove
        objectName: "confirmRemoveDialog"
        property string modelId: ""
        property string modelName: ""
        title: qsTr("Remove model?")
        width: 420  // explicit: Qt 6.4's DialogButtonBox otherwise loops on implicitWidth
        anchors.centerIn: parent
        standardButtons: Dialog.Yes | Dialog.No
        Label {
            width: confirmRemove.availableWidth
            wrapMode: Text.WordWrap
            text: qsTr("%1 will be deleted from disk. You can download it again later.").arg(confirmRemove.modelName)
        }
        onAccepted: root.removeRequested(modelId)
    }

    ThemedDialog {
        theme: root.theme
        id: existingFile
        objectName: "existingFileDialog"
        property string modelId: ""
        property string modelName: ""
        property string fileName: ""
        title: qsTr("A file named %1 is already there").arg(fileName)
        width: 480  // explicit, as for confirmRemove
        anchors.centerIn: parent
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
        theme: root.theme
        id: confirmReplace
        objectName: "confirmReplaceDialog"
        title: qsTr("Replace your file?")
        width: 420
        anchors.centerIn: parent
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
