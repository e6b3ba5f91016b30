import QtQuick
import QtQuick.Controls
import QtQuick.Dialogs
import QtQuick.Layouts
import Trit.App

// The main chat window. main() hands in the bridges (chat, engine, settings) as initial properties;
// without them (a bare QML load) the window still opens and shows what to do next.
ApplicationWindow {
    id: window
    objectName: "mainWindow"
    width: 1100
    height: 760
    minimumWidth: 640
    minimumHeight: 480
    visible: true
    title: qsTr("Trit")

    property var chat: null           // ChatController
    property var engine: null         // EngineBridge
    property var settings: null       // AppSettings
    property var conversations: null  // ConversationsBridge: the saved conversations (list, search, export)
    property var apiServer: null      // ApiServer: the local API server (Settings → Local API server)
    property string themeOverride: "" // "light"/"dark" for this run (screenshots), else the settings decide
    property string dataNotice: ""    // main(): the data folders moved from an earlier version's places, or why not

    readonly property string engineState: engine ? engine.state : "noModel"
    readonly property bool modelReady: engineState === "ready"

    ChatTheme {
        id: appTheme
        mode: window.themeOverride.length > 0 ? window.themeOverride : (window.settings ? window.settings.theme : "system")
        systemWindowColor: systemPalette.window
        fontSize: window.settings ? window.settings.fontSize : 11
        reduceMotion: window.settings ? window.settings.reduceMotion : false
    }
    SystemPalette { id: systemPalette; colorGroup: SystemPalette.Active }

    // Every control (other dialogs included) follows the theme through the palette.
    palette.window: appTheme.window
    palette.windowText: appTheme.text
    palette.base: appTheme.surface
    palette.alternateBase: appTheme.sidebar
    palette.text: appTheme.text
    palette.button: appTheme.surface
    palette.buttonText: appTheme.text
    palette.highlight: appTheme.accent
    palette.link: appTheme.accent
    palette.brightText: appTheme.accentText
    palette.highlightedText: appTheme.accentText
    palette.placeholderText: appTheme.mutedText
    palette.mid: appTheme.border
    palette.light: appTheme.surface
    palette.dark: appTheme.border
    palette.midlight: appTheme.hover
    palette.shadow: appTheme.scrim
    palette.toolTipBase: appTheme.surface
    palette.toolTipText: appTheme.text
    font.pointSize: appTheme.fontSize
    color: appTheme.window

    function newChat() {
        if (window.chat)
            window.chat.newConversation()
        chatView.composer.focusInput()
    }

    readonly property bool storageOpen: conversations !== null && conversations.available
    readonly property var conversationList: storageOpen ? conversations.list : null
    // The search model follows the sidebar's field.
    Binding {
        target: window.storageOpen ? window.conversations.search : null
        property: "query"
        value: sidebar.searchText
    }

    function openConversation(id) {
        if (window.chat && window.chat.loadConversation(id))
            chatView.composer.focusInput()
    }

    // The first problem worth telling: the data folders' move, the database, then a failed save, export
    // or import.
    readonly property string storageMessage: {
        if (dataNotice.length > 0)
            return dataNotice
        if (conversations === null)
            return ""
        if (conversations.problem.length > 0)
            return conversations.problem
        if (chat && chat.storageError && chat.storageError.length > 0)
            return chat.storageError
        if (conversations.lastError.length > 0)
            return conversations.lastError
        if (conversationList && conversationList.errorString.length > 0)
            return conversationList.errorString
        return ""
    }
    function dismissStorageMessage() {
        if (dataNotice.length > 0)
            dataNotice = ""
        else if (conversations.problem.length > 0)
            conversations.dismissProblem()
        else if (chat && chat.storageError.length > 0)
            chat.clearStorageError()
        else if (conversations.lastError.length > 0)
            conversations.dismissLastError()
    }

    FileDialog {
        id: exportDialog
        property var conversationId: 0
        property string format: "markdown"
        title: qsTr("Export the conversation")
        fileMode: FileDialog.SaveFile
        nameFilters: format === "json" ? [qsTr("JSON (*.json)")] : [qsTr("Markdown (*.md)")]
        onAccepted: window.conversations.exportConversation(conversationId, selectedFile, format)
    }
    FileDialog {
        id: importDialog
        title: qsTr("Import a conversation")
        fileMode: FileDialog.OpenFile
        nameFilters: [qsTr("Trit conversations (*.json)"), qsTr("All files (*)")]
        onAccepted: {
            const id = window.conversations.importConversation(selectedFile)
            if (id > 0)
                window.openConversation(id)
        }
    }
    function exportConversation(id, format) {
        exportDialog.conversationId = id
        exportDialog.format = format
        exportDialog.selectedFile = window.conversations.suggestedFileUrl(id, format)
        exportDialog.open()
    }

    // The model manager's bridge (app/src/models/model_manager_bridge.h), App.models (app_services.h);
    // null in a bare QML load, where a file dialog opens a GGUF file directly instead.
    readonly property ModelManager models: App.models

    // What the right-hand side shows: "chat" (the conversation) or "models" (the model manager page).
    property string page: "chat"

    function openModelManager() {
        if (!window.models) {
            modelFileDialog.open()
            return
        }
        modelManager.notice = ""
        window.page = "models"
    }
    function closeModelManager() {
        window.page = "chat"
        chatView.composer.focusInput()
    }

    // The first start (nothing installed, no model being opened) shows the welcome with its one button
    // instead of the empty chat, until the model it fetched is loaded.
    readonly property bool firstRunShown: window.models !== null
        && (firstRun.started ? window.engineState !== "ready"
                             : window.models.installedCount === 0 && window.engineState === "noModel")
    // The live row of model `id` (its map, as a card shows it): the welcome follows its recommended
    // model's download through it. A binding that calls this updates as the row changes.
    Instantiator {
        id: modelRows
        model: window.models ? window.models.model : null
        delegate: QtObject { required property var modelData }
    }
    function entryFor(id) {
        for (let i = 0; i < modelRows.count; ++i) {
            const row = modelRows.objectAt(i)
            if (row && row.modelData.id === id)
                return row.modelData
        }
        return null
    }

    Connections {
        target: window.models
        function onErrorOccurred(message) { modelManager.notice = message }
        function onDownloadConflict(id, name, fileName, message) {
            modelManager.askExistingFile(id, name, fileName)
        }
    }

    FileDialog {
        id: modelFileDialog
        title: qsTr("Open a model file")
        nameFilters: [qsTr("GGUF models (*.gguf)"), qsTr("All files (*)")]
        onAccepted: if (window.engine) window.engine.loadModel(selectedFile)
    }

    AboutDialog {
        id: aboutDialog
        parent: Overlay.overlay
        about: App.about
        theme: appTheme
    }

    SettingsDialog {
        id: settingsDialog
        parent: Overlay.overlay
        settings: window.settings
        engine: window.engine
        apiServer: window.apiServer
        models: window.models
        theme: appTheme
    }

    // (Qt 6.4's qmllint does not know the StandardKey enumeration: the three lines using it are unchecked.)
    Shortcut { sequences: [StandardKey.New, "Ctrl+N"]; context: Qt.ApplicationShortcut; onActivated: window.newChat() } // qmllint disable
    Shortcut {
        sequence: "Esc"
        enabled: window.chat !== null && window.chat.generating && window.page === "chat"
        onActivated: window.chat.stop()
    }
    Shortcut {
        sequence: "Esc"
        enabled: window.page === "models"
        onActivated: window.closeModelManager()
    }
    Shortcut { sequence: "Ctrl+L"; onActivated: chatView.composer.focusInput() }
    Shortcut { sequence: "Ctrl+K"; onActivated: sidebar.focusSearch() }
    Shortcut { sequences: [StandardKey.Preferences, "Ctrl+,"]; onActivated: settingsDialog.open() } // qmllint disable
    Shortcut { sequences: [StandardKey.HelpContents, "F1"]; onActivated: aboutDialog.open() } // qmllint disable

    RowLayout {
        anchors.fill: parent
        spacing: 0

        Sidebar {
            id: sidebar
            objectName: "sidebar"
            Layout.preferredWidth: 264
            Layout.fillHeight: true
            conversations: window.conversationList
            searchResults: window.storageOpen ? window.conversations.search : null
            currentConversationId: window.chat ? window.chat.conversationId : 0
            canUndoDelete: window.conversationList ? window.conversationList.canUndoDelete : false
            undoTitle: window.conversationList ? window.conversationList.undoTitle : ""
            theme: appTheme
            onNewChatRequested: window.newChat()
            onConversationActivated: (id) => window.openConversation(id)
            onRenameRequested: (id, title) => window.conversationList.rename(id, title)
            onPinRequested: (id, pinned) => window.conversationList.setPinned(id, pinned)
            onDeleteRequested: (id) => window.conversationList.remove(id)
            onUndoDeleteRequested: window.conversationList.undoRemove()
            onExportRequested: (id, format) => window.exportConversation(id, format)
            onImportRequested: importDialog.open()
            onModelManagerRequested: window.openModelManager()
            onSettingsRequested: settingsDialog.open()
            onAboutRequested: aboutDialog.open()
        }
        Rectangle { Layout.fillHeight: true; width: 1; color: appTheme.border }

        ColumnLayout {
            Layout.fillWidth: true
            Layout.fillHeight: true
            spacing: 0

            StorageBanner {
                Layout.fillWidth: true
                message: window.storageMessage
                canRetry: window.dataNotice.length === 0 && window.conversations !== null && !window.conversations.available
                          && window.conversations.problem.length > 0
                theme: appTheme
                onRetryRequested: window.conversations.retry()
                onDismissRequested: window.dismissStorageMessage()
            }

            // The chat, or the model manager in its place.
            ColumnLayout {
                objectName: "chatPage"
                Layout.fillWidth: true
                Layout.fillHeight: true
                spacing: 0
                visible: window.page === "chat"

                ChatHeader {
                    id: chatHeader
                    Layout.fillWidth: true
                    theme: appTheme
                    engineState: window.engineState
                    modelName: window.engine ? window.engine.modelName : ""
                    modelPath: window.engine ? window.engine.modelPath : ""
                    loadingPath: window.engine ? window.engine.loadingPath : ""
                    installedModels: window.models ? window.models.installed : []
                    contextUsed: window.chat ? window.chat.contextUsed : 0
                    contextLength: window.engine ? window.engine.contextLength : 0
                    contextFull: window.chat ? window.chat.contextFull : false
                    canEditSystemPrompt: window.chat !== null
                    systemPrompt: window.chat ? window.chat.systemPrompt : ""
                    onModelChosen: (path) => { if (window.engine) window.engine.loadModel(path) }
                    onManageModelsRequested: window.openModelManager()
                    onSystemPromptEdited: (text) => { if (window.chat) window.chat.systemPrompt = text }
                }

                Item {
                    Layout.fillWidth: true
                    Layout.fillHeight: true
                    ChatView {
                        id: chatView
                        anchors.fill: parent
                        chat: window.chat
                        modelReady: window.modelReady
                        baseModel: window.engine ? window.engine.baseModel : false
                        theme: appTheme
                        onNewConversationRequested: window.newChat()
                    }
                    // Over the empty conversation: what to do next, or why it cannot start.
                    EmptyState {
                        anchors.fill: parent
                        anchors.bottomMargin: chatView.composer.height
                        visible: (!window.chat || window.chat.messages.count === 0) && !window.firstRunShown
                        engineState: window.engineState
                        errorMessage: window.engine ? window.engine.errorMessage : ""
                        modelName: window.engine ? window.engine.modelName : ""
                        theme: appTheme
                        onModelManagerRequested: window.openModelManager()
                        onOpenFileRequested: modelFileDialog.open()
                    }
                    Rectangle {
                        anchors.fill: parent
                        visible: window.firstRunShown
                        color: appTheme.window
                        FirstRun {
                            id: firstRun
                            anchors.fill: parent
                            theme: appTheme
                            gpuSummary: window.models ? window.models.gpuSummary : ""
                            gpuError: window.models ? window.models.gpuError : ""
                            recommended: window.models ? window.models.recommendedModel : ({})
                            entry: window.entryFor(recommended ? recommended.id : "")
                            engineState: window.engineState
                            engineError: window.engine ? window.engine.errorMessage : ""
                            onDownloadRequested: (id) => window.models.download(id)
                            onLoadRequested: (path) => { if (window.engine) window.engine.loadModel(path) }
                            onManageModelsRequested: window.openModelManager()
                            onOpenFileRequested: modelFileDialog.open()
                            onReady: chatView.composer.focusInput()
                        }
                    }
                }
            }
            ModelManagerPage {
                id: modelManager
                Layout.fillWidth: true
                Layout.fillHeight: true
                visible: window.page === "models"
                theme: appTheme
                entries: window.models ? window.models.model : []
                modelsFolder: window.models ? window.models.modelsFolder : ""
                installedCount: window.models ? window.models.installedCount : 0
                importing: window.models ? window.models.importing : false
                gpuSummary: window.models ? window.models.gpuSummary : ""
                gpuError: window.models ? window.models.gpuError : ""
                onBackRequested: window.closeModelManager()
                onDownloadRequested: id => window.models.download(id)
                onDownloadChoiceMade: (id, existing) => window.models.download(id, existing)
                onPauseRequested: id => window.models.pause(id)
                onResumeRequested: id => window.models.resume(id)
                onCancelRequested: id => window.models.cancel(id)
                onRemoveRequested: id => window.models.remove(id)
                onImportRequested: fileUrls => window.models.importFiles(fileUrls)
                onOpenFolderRequested: folder => Qt.openUrlExternally(folder)
                onUseRequested: (id, path) => {
                    if (window.engine)
                        window.engine.loadModel(path)
                    window.closeModelManager()
                }
            }
            StatusBar {
                Layout.fillWidth: true
                engine: window.engine
                chat: window.chat
                apiServer: window.apiServer
                theme: appTheme
            }
        }
    }

    Component.onCompleted: chatView.composer.focusInput()
}
