<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE">
<context>
    <name>ChatController</name>
    <message>
        <location filename="../app/src/chat/chat_controller.cpp" line="73"/>
        <source>A reply is still being written. Stop it first.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/src/chat/chat_controller.cpp" line="77"/>
        <source>No model is loaded. Open a model in the model manager first.</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <location filename="../app/src/chat/chat_controller.cpp" line="210"/>
        <source>The conversation no longer fits in the model&apos;s context of %n tokens. Start a new conversation, or drop the oldest messages to continue.</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ChatSparkline</name>
    <message>
        <location filename="../qml/ChatSparkline.qml" line="12"/>
        <source>Generation speed over the reply</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ChatView</name>
    <message>
        <location filename="../qml/ChatView.qml" line="31"/>
        <source>Hide system prompt</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/ChatView.qml" line="31"/>
        <source>System prompt…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/ChatView.qml" line="33"/>
        <source>Show or hide the system prompt of this conversation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/ChatView.qml" line="40"/>
        <source>Instructions the model reads before this conversation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/ChatView.qml" line="41"/>
        <source>System prompt of this conversation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/ChatView.qml" line="57"/>
        <source>Conversation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/ChatView.qml" line="101"/>
        <source>The conversation is longer than the model&apos;s context. Nothing was cut off: start a new conversation, or drop the oldest messages to continue.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/ChatView.qml" line="106"/>
        <source>New conversation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/ChatView.qml" line="111"/>
        <source>Drop oldest messages</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Composer</name>
    <message>
        <location filename="../qml/Composer.qml" line="38"/>
        <source>Message Trit (Enter to send, Shift+Enter for a new line)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/Composer.qml" line="39"/>
        <source>Open a model to start chatting</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/Composer.qml" line="44"/>
        <source>Message</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/Composer.qml" line="63"/>
        <source>Stop</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/Composer.qml" line="63"/>
        <source>Send</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/Composer.qml" line="66"/>
        <source>Stop the reply</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/Composer.qml" line="66"/>
        <source>Send the message</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>EmptyState</name>
    <message>
        <location filename="../qml/EmptyState.qml" line="27"/>
        <source>Loading the model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/EmptyState.qml" line="35"/>
        <source>Loading the model…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/EmptyState.qml" line="36"/>
        <source>The model could not be loaded</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/EmptyState.qml" line="37"/>
        <source>Ready when you are</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/EmptyState.qml" line="38"/>
        <source>No model loaded</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/EmptyState.qml" line="54"/>
        <source>The weights are read and moved to the device. The window stays usable meanwhile.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/EmptyState.qml" line="56"/>
        <source>%1 is loaded. Write a message below; replies are generated on this computer, offline.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/EmptyState.qml" line="57"/>
        <source>Trit runs ternary (1.58-bit) language models on your own GPU, offline. Add a model to start chatting.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/EmptyState.qml" line="66"/>
        <source>Open the model manager</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/EmptyState.qml" line="72"/>
        <source>Open a model file…</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>EngineWorker</name>
    <message>
        <location filename="../app/src/chat/engine_worker.cpp" line="51"/>
        <source>The model file %1 does not exist. Choose another file or download a model in the model manager.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/src/chat/engine_worker.cpp" line="81"/>
        <source>CPU (reference engine)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/src/chat/engine_worker.cpp" line="87"/>
        <source>The model could not be loaded: %1 Choose another model file, or download it again in the model manager.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/src/chat/engine_worker.cpp" line="91"/>
        <source>The GPU could not be used: %1 In Settings, choose another device or the CPU engine.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/src/chat/engine_worker.cpp" line="95"/>
        <source>The model could not be loaded: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/src/chat/engine_worker.cpp" line="102"/>
        <source>%1 of weights mapped in RAM</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/src/chat/engine_worker.cpp" line="115"/>
        <source>%1 of %2 GPU memory in use</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/src/chat/engine_worker.cpp" line="117"/>
        <source>%1 of weights on a device with %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/src/chat/engine_worker.cpp" line="120"/>
        <source>%1 of weights</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/src/chat/engine_worker.cpp" line="138"/>
        <source>No model is loaded. Open a model first.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../app/src/chat/engine_worker.cpp" line="193"/>
        <source>The engine stopped with an error: %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Main</name>
    <message>
        <location filename="../qml/Main.qml" line="16"/>
        <source>Trit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/Main.qml" line="77"/>
        <source>Open a model file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/Main.qml" line="78"/>
        <source>GGUF models (*.gguf)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/Main.qml" line="78"/>
        <source>All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>MessageBubble</name>
    <message>
        <location filename="../qml/MessageBubble.qml" line="34"/>
        <source>You said: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/MessageBubble.qml" line="34"/>
        <source>Trit replied: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/MessageBubble.qml" line="82"/>
        <source>Edit your message</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/MessageBubble.qml" line="98"/>
        <source>Save and send</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/MessageBubble.qml" line="106"/>
        <source>Cancel</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/MessageBubble.qml" line="153"/>
        <source>Writing a reply</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/MessageBubble.qml" line="181"/>
        <source>Copy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/MessageBubble.qml" line="183"/>
        <source>Copy message</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/MessageBubble.qml" line="190"/>
        <source>Edit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/MessageBubble.qml" line="192"/>
        <source>Edit message and answer again</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/MessageBubble.qml" line="203"/>
        <source>Regenerate</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/MessageBubble.qml" line="205"/>
        <source>Write this reply again</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>MessageCodeBlock</name>
    <message>
        <location filename="../qml/MessageCodeBlock.qml" line="26"/>
        <source>code</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/MessageCodeBlock.qml" line="33"/>
        <source>Copy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/MessageCodeBlock.qml" line="35"/>
        <source>Copy code</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/MessageCodeBlock.qml" line="52"/>
        <source>Code</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>MessageStats</name>
    <message>
        <location filename="../qml/MessageStats.qml" line="19"/>
        <source>TTFT %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/MessageStats.qml" line="20"/>
        <source>prompt %1 t/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/MessageStats.qml" line="21"/>
        <source>%1 t/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/MessageStats.qml" line="22"/>
        <source>%1 prompt + %2 generated tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/MessageStats.qml" line="25"/>
        <source>%1 reused from cache</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/MessageStats.qml" line="30"/>
        <source>stopped at the length limit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/MessageStats.qml" line="31"/>
        <source>stopped</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/MessageStats.qml" line="32"/>
        <source>context full</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/MessageStats.qml" line="42"/>
        <source>Reply statistics: %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="12"/>
        <source>Settings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="19"/>
        <source>Automatic (best GPU)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="34"/>
        <source>Sampling</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="35"/>
        <location filename="../qml/SettingsDialog.qml" line="43"/>
        <source>Temperature</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="46"/>
        <location filename="../qml/SettingsDialog.qml" line="51"/>
        <source>Top-k</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="54"/>
        <location filename="../qml/SettingsDialog.qml" line="61"/>
        <source>Top-p</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="64"/>
        <location filename="../qml/SettingsDialog.qml" line="71"/>
        <source>Min-p</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="74"/>
        <location filename="../qml/SettingsDialog.qml" line="81"/>
        <source>Repetition penalty</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="84"/>
        <source>Longest reply (tokens)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="89"/>
        <source>Longest reply in tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="94"/>
        <source>Restore the recommended sampling settings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="98"/>
        <location filename="../qml/SettingsDialog.qml" line="105"/>
        <source>System prompt for new chats</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="104"/>
        <source>Optional instructions given to the model before every chat</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="109"/>
        <source>Engine</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="110"/>
        <source>Run on</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="114"/>
        <source>GPU (Vulkan)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="114"/>
        <source>CPU (slow reference engine)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="116"/>
        <source>Engine backend</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="119"/>
        <source>GPU</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="125"/>
        <source>GPU device</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="136"/>
        <source>Context length (0: the model&apos;s)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="142"/>
        <source>Context length in tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="149"/>
        <source>Engine changes apply when this dialog closes: the model is loaded again.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="153"/>
        <source>Appearance</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="154"/>
        <location filename="../qml/SettingsDialog.qml" line="161"/>
        <source>Theme</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="159"/>
        <source>Follow the system</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="159"/>
        <source>Light</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="159"/>
        <source>Dark</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="164"/>
        <source>Font size</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="169"/>
        <source>Font size in points</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Sidebar</name>
    <message>
        <location filename="../qml/Sidebar.qml" line="31"/>
        <source>New chat</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/Sidebar.qml" line="32"/>
        <source>Start a new chat (Ctrl+N)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/Sidebar.qml" line="40"/>
        <source>Search conversations (Ctrl+K)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/Sidebar.qml" line="42"/>
        <source>Search conversations</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/Sidebar.qml" line="54"/>
        <source>Conversations</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/Sidebar.qml" line="60"/>
        <source>Untitled</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/Sidebar.qml" line="73"/>
        <source>No conversations yet</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/Sidebar.qml" line="73"/>
        <source>Conversations will be listed here</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/Sidebar.qml" line="81"/>
        <source>Models…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/Sidebar.qml" line="82"/>
        <source>Manage models</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/Sidebar.qml" line="90"/>
        <source>Settings…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/Sidebar.qml" line="91"/>
        <source>Settings (Ctrl+,)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>StatusBar</name>
    <message>
        <location filename="../qml/StatusBar.qml" line="26"/>
        <source>%1 on %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/StatusBar.qml" line="27"/>
        <source>Loading %1…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/StatusBar.qml" line="28"/>
        <source>The model could not be loaded</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/StatusBar.qml" line="29"/>
        <source>No model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/StatusBar.qml" line="47"/>
        <source>context %1 / %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/StatusBar.qml" line="63"/>
        <source>Reading the prompt</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/StatusBar.qml" line="68"/>
        <source>prompt %1/%2 · %3 t/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/StatusBar.qml" line="85"/>
        <source>%1 t/s · %2 tokens</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <location filename="../qml/StatusBar.qml" line="89"/>
        <source>Generation speed: %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
</TS>
