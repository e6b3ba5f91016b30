<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE">
<context>
    <name>AboutDialog</name>
    <message>
        <location filename="../qml/AboutDialog.qml" line="15"/>
        <source>About Trit</source>
        <translation>Über Trit</translation>
    </message>
    <message>
        <location filename="../qml/AboutDialog.qml" line="29"/>
        <source>Trit %1</source>
        <translation>Trit %1</translation>
    </message>
    <message>
        <location filename="../qml/AboutDialog.qml" line="29"/>
        <source>Trit</source>
        <translation>Trit</translation>
    </message>
    <message>
        <location filename="../qml/AboutDialog.qml" line="35"/>
        <source>Private, offline chat with ternary (1.58-bit) language models.</source>
        <translation>Privater Offline-Chat mit ternären (1,58-Bit-)Sprachmodellen.</translation>
    </message>
    <message>
        <location filename="../qml/AboutDialog.qml" line="41"/>
        <source>Qt %1</source>
        <translation>Qt %1</translation>
    </message>
    <message>
        <location filename="../qml/AboutDialog.qml" line="46"/>
        <source>Precision: %1 activations</source>
        <translation>Genauigkeit: %1-Aktivierungen</translation>
    </message>
    <message>
        <location filename="../qml/AboutDialog.qml" line="53"/>
        <source>Devices</source>
        <translation>Geräte</translation>
    </message>
    <message>
        <location filename="../qml/AboutDialog.qml" line="74"/>
        <source>Device information is not available in this build.</source>
        <translation>Geräteinformationen sind in diesem Build nicht verfügbar.</translation>
    </message>
    <message>
        <location filename="../qml/AboutDialog.qml" line="75"/>
        <source>Looking for Vulkan devices…</source>
        <translation>Suche nach Vulkan-Geräten…</translation>
    </message>
    <message>
        <location filename="../qml/AboutDialog.qml" line="76"/>
        <source>No Vulkan device: %1</source>
        <translation>Kein Vulkan-Gerät: %1</translation>
    </message>
    <message>
        <location filename="../qml/AboutDialog.qml" line="79"/>
        <source>Vulkan devices</source>
        <translation>Vulkan-Geräte</translation>
    </message>
    <message>
        <location filename="../qml/AboutDialog.qml" line="100"/>
        <source>Copy version and device information</source>
        <translation>Versions- und Geräteinformationen kopieren</translation>
    </message>
</context>
<context>
    <name>ChatHeader</name>
    <message>
        <location filename="../qml/ChatHeader.qml" line="35"/>
        <source>Loading %1…</source>
        <translation>%1 wird geladen…</translation>
    </message>
    <message>
        <location filename="../qml/ChatHeader.qml" line="36"/>
        <source>The model could not be loaded</source>
        <translation>Das Modell konnte nicht geladen werden</translation>
    </message>
    <message>
        <location filename="../qml/ChatHeader.qml" line="37"/>
        <source>Choose a model</source>
        <translation>Modell wählen</translation>
    </message>
    <message>
        <location filename="../qml/ChatHeader.qml" line="64"/>
        <source>Switch the model</source>
        <translation>Modell wechseln</translation>
    </message>
    <message>
        <location filename="../qml/ChatHeader.qml" line="65"/>
        <source>Model: %1. Switch the model</source>
        <translation>Modell: %1. Modell wechseln</translation>
    </message>
    <message>
        <location filename="../qml/ChatHeader.qml" line="83"/>
        <source>System prompt</source>
        <translation>Systemprompt</translation>
    </message>
    <message>
        <location filename="../qml/ChatHeader.qml" line="85"/>
        <source>Instructions for this conversation (none yet)</source>
        <translation>Anweisungen für diese Unterhaltung (noch keine)</translation>
    </message>
    <message>
        <location filename="../qml/ChatHeader.qml" line="86"/>
        <source>System prompt of this conversation</source>
        <translation>Systemprompt dieser Unterhaltung</translation>
    </message>
    <message>
        <location filename="../qml/ChatHeader.qml" line="115"/>
        <source>No models on disk yet</source>
        <translation>Noch keine Modelle auf der Festplatte</translation>
    </message>
    <message>
        <location filename="../qml/ChatHeader.qml" line="122"/>
        <source>Manage models…</source>
        <translation>Modelle verwalten…</translation>
    </message>
</context>
<context>
    <name>ChatSparkline</name>
    <message>
        <location filename="../qml/ChatSparkline.qml" line="12"/>
        <source>Generation speed over the reply</source>
        <translation>Generierungsgeschwindigkeit im Verlauf der Antwort</translation>
    </message>
</context>
<context>
    <name>ChatView</name>
    <message>
        <location filename="../qml/ChatView.qml" line="35"/>
        <source>Conversation</source>
        <translation>Unterhaltung</translation>
    </message>
    <message>
        <location filename="../qml/ChatView.qml" line="85"/>
        <source>The conversation is longer than the model&apos;s context. Nothing was cut off: start a new conversation, or drop the oldest messages to continue.</source>
        <translation>Die Unterhaltung ist länger als der Kontext des Modells. Es wurde nichts abgeschnitten: Beginnen Sie eine neue Unterhaltung oder entfernen Sie die ältesten Nachrichten, um fortzufahren.</translation>
    </message>
    <message>
        <location filename="../qml/ChatView.qml" line="90"/>
        <source>New conversation</source>
        <translation>Neue Unterhaltung</translation>
    </message>
    <message>
        <location filename="../qml/ChatView.qml" line="95"/>
        <source>Drop oldest messages</source>
        <translation>Älteste Nachrichten entfernen</translation>
    </message>
    <message>
        <location filename="../qml/ChatView.qml" line="122"/>
        <source>This is a base model: it has no chat format, so it continues the text you send instead of answering it.</source>
        <translation>Dies ist ein Basismodell: Es hat kein Chatformat und setzt daher den gesendeten Text fort, statt ihn zu beantworten.</translation>
    </message>
</context>
<context>
    <name>Composer</name>
    <message>
        <location filename="../qml/Composer.qml" line="58"/>
        <source>Message Trit (Enter to send, Shift+Enter for a new line)</source>
        <translation>Nachricht an Trit (Eingabe zum Senden, Umschalt+Eingabe für eine neue Zeile)</translation>
    </message>
    <message>
        <location filename="../qml/Composer.qml" line="56"/>
        <source>Open a model to start chatting</source>
        <translation>Öffnen Sie ein Modell, um zu chatten</translation>
    </message>
    <message>
        <location filename="../qml/Composer.qml" line="57"/>
        <source>Text for the model to continue (Enter to send, Shift+Enter for a new line)</source>
        <translation>Text, den das Modell fortsetzen soll (Eingabe zum Senden, Umschalt+Eingabe für eine neue Zeile)</translation>
    </message>
    <message>
        <location filename="../qml/Composer.qml" line="66"/>
        <source>Message</source>
        <translation>Nachricht</translation>
    </message>
    <message>
        <location filename="../qml/Composer.qml" line="88"/>
        <source>Stop the reply (Esc)</source>
        <translation>Antwort anhalten (Esc)</translation>
    </message>
    <message>
        <location filename="../qml/Composer.qml" line="88"/>
        <source>Send the message (Enter)</source>
        <translation>Nachricht senden (Eingabe)</translation>
    </message>
    <message>
        <location filename="../qml/Composer.qml" line="89"/>
        <source>Stop the reply</source>
        <translation>Antwort anhalten</translation>
    </message>
    <message>
        <location filename="../qml/Composer.qml" line="89"/>
        <source>Send the message</source>
        <translation>Nachricht senden</translation>
    </message>
</context>
<context>
    <name>ContextMeter</name>
    <message>
        <location filename="../qml/ContextMeter.qml" line="22"/>
        <location filename="../qml/ContextMeter.qml" line="24"/>
        <source>%1k</source>
        <translation>%1k</translation>
    </message>
    <message>
        <location filename="../qml/ContextMeter.qml" line="33"/>
        <source>Context: %1 of %2 tokens used (%3 %)</source>
        <translation>Kontext: %1 von %2 Tokens belegt (%3 %)</translation>
    </message>
    <message>
        <location filename="../qml/ContextMeter.qml" line="62"/>
        <source>%1 / %2</source>
        <translation>%1 / %2</translation>
    </message>
</context>
<context>
    <name>EmptyState</name>
    <message>
        <location filename="../qml/EmptyState.qml" line="27"/>
        <source>Loading the model</source>
        <translation>Modell wird geladen</translation>
    </message>
    <message>
        <location filename="../qml/EmptyState.qml" line="35"/>
        <source>Loading the model…</source>
        <translation>Modell wird geladen…</translation>
    </message>
    <message>
        <location filename="../qml/EmptyState.qml" line="36"/>
        <source>The model could not be loaded</source>
        <translation>Das Modell konnte nicht geladen werden</translation>
    </message>
    <message>
        <location filename="../qml/EmptyState.qml" line="37"/>
        <source>Ready when you are</source>
        <translation>Bereit, wenn Sie es sind</translation>
    </message>
    <message>
        <location filename="../qml/EmptyState.qml" line="38"/>
        <source>No model loaded</source>
        <translation>Kein Modell geladen</translation>
    </message>
    <message>
        <location filename="../qml/EmptyState.qml" line="56"/>
        <source>The weights are read and moved to the device. The window stays usable meanwhile.</source>
        <translation>Die Gewichte werden gelesen und auf das Gerät übertragen. Das Fenster bleibt währenddessen bedienbar.</translation>
    </message>
    <message>
        <location filename="../qml/EmptyState.qml" line="58"/>
        <source>%1 is loaded. Write a message below; replies are generated on this computer, offline.</source>
        <translation>%1 ist geladen. Schreiben Sie unten eine Nachricht; die Antworten werden offline auf diesem Computer erzeugt.</translation>
    </message>
    <message>
        <location filename="../qml/EmptyState.qml" line="59"/>
        <source>Trit runs ternary (1.58-bit) language models on your own GPU, offline. Add a model to start chatting.</source>
        <translation>Trit führt ternäre (1,58-Bit-)Sprachmodelle offline auf Ihrer eigenen GPU aus. Fügen Sie ein Modell hinzu, um zu chatten.</translation>
    </message>
    <message>
        <location filename="../qml/EmptyState.qml" line="79"/>
        <source>Open the model manager</source>
        <translation>Modellverwaltung öffnen</translation>
    </message>
    <message>
        <location filename="../qml/EmptyState.qml" line="91"/>
        <source>Open a model file…</source>
        <translation>Modelldatei öffnen…</translation>
    </message>
</context>
<context>
    <name>FirstRun</name>
    <message>
        <location filename="../qml/FirstRun.qml" line="77"/>
        <source>Welcome to Trit</source>
        <translation>Willkommen bei Trit</translation>
    </message>
    <message>
        <location filename="../qml/FirstRun.qml" line="87"/>
        <source>Trit chats with ternary (1.58-bit) language models on your own graphics card.</source>
        <translation>Trit chattet mit ternären (1,58-Bit-)Sprachmodellen auf Ihrer eigenen Grafikkarte.</translation>
    </message>
    <message>
        <location filename="../qml/FirstRun.qml" line="88"/>
        <source>Private and offline: nothing you write leaves this computer.</source>
        <translation>Privat und offline: Nichts, was Sie schreiben, verlässt diesen Computer.</translation>
    </message>
    <message>
        <location filename="../qml/FirstRun.qml" line="109"/>
        <source>No GPU found: %1 Trit can still run on the processor, slowly (Settings → Engine).</source>
        <translation>Keine GPU gefunden: %1 Trit kann trotzdem auf dem Prozessor laufen, langsam (Einstellungen → Engine).</translation>
    </message>
    <message>
        <location filename="../qml/FirstRun.qml" line="110"/>
        <source>Looking for your GPU…</source>
        <translation>Suche nach Ihrer GPU…</translation>
    </message>
    <message>
        <location filename="../qml/FirstRun.qml" line="134"/>
        <source>Recommended: %1</source>
        <translation>Empfohlen: %1</translation>
    </message>
    <message>
        <location filename="../qml/FirstRun.qml" line="147"/>
        <source>%1 parameters</source>
        <translation>%1 Parameter</translation>
    </message>
    <message>
        <location filename="../qml/FirstRun.qml" line="149"/>
        <source>licence: %1</source>
        <translation>Lizenz: %1</translation>
    </message>
    <message>
        <location filename="../qml/FirstRun.qml" line="159"/>
        <source>None of the catalogue&apos;s models is known to fit this GPU&apos;s free memory. The model manager shows each model&apos;s needs.</source>
        <translation>Von keinem Modell des Katalogs ist bekannt, dass es in den freien Speicher dieser GPU passt. Die Modellverwaltung zeigt, was jedes Modell braucht.</translation>
    </message>
    <message>
        <location filename="../qml/FirstRun.qml" line="171"/>
        <source>Loading the model</source>
        <translation>Das Modell wird geladen</translation>
    </message>
    <message>
        <location filename="../qml/FirstRun.qml" line="171"/>
        <source>Downloading the model</source>
        <translation>Das Modell wird heruntergeladen</translation>
    </message>
    <message>
        <location filename="../qml/FirstRun.qml" line="181"/>
        <source>Starting the download…</source>
        <translation>Der Download beginnt…</translation>
    </message>
    <message>
        <location filename="../qml/FirstRun.qml" line="182"/>
        <source>Loading the model onto the GPU…</source>
        <translation>Das Modell wird auf die GPU geladen…</translation>
    </message>
    <message>
        <location filename="../qml/FirstRun.qml" line="183"/>
        <source>The download failed.</source>
        <translation>Der Download ist fehlgeschlagen.</translation>
    </message>
    <message>
        <location filename="../qml/FirstRun.qml" line="201"/>
        <source>Try again</source>
        <translation>Erneut versuchen</translation>
    </message>
    <message>
        <location filename="../qml/FirstRun.qml" line="202"/>
        <source>Start with %1</source>
        <translation>Mit %1 beginnen</translation>
    </message>
    <message>
        <location filename="../qml/FirstRun.qml" line="203"/>
        <source>Download %1 and start</source>
        <translation>%1 herunterladen und beginnen</translation>
    </message>
    <message>
        <location filename="../qml/FirstRun.qml" line="222"/>
        <source>Choose another model…</source>
        <translation>Anderes Modell wählen…</translation>
    </message>
    <message>
        <location filename="../qml/FirstRun.qml" line="230"/>
        <source>Open a model file…</source>
        <translation>Modelldatei öffnen…</translation>
    </message>
</context>
<context>
    <name>Main</name>
    <message>
        <location filename="../qml/Main.qml" line="17"/>
        <source>Trit</source>
        <translation>Trit</translation>
    </message>
    <message>
        <location filename="../qml/Main.qml" line="114"/>
        <source>Export the conversation</source>
        <translation>Unterhaltung exportieren</translation>
    </message>
    <message>
        <location filename="../qml/Main.qml" line="116"/>
        <source>JSON (*.json)</source>
        <translation>JSON (*.json)</translation>
    </message>
    <message>
        <location filename="../qml/Main.qml" line="116"/>
        <source>Markdown (*.md)</source>
        <translation>Markdown (*.md)</translation>
    </message>
    <message>
        <location filename="../qml/Main.qml" line="121"/>
        <source>Import a conversation</source>
        <translation>Unterhaltung importieren</translation>
    </message>
    <message>
        <location filename="../qml/Main.qml" line="123"/>
        <source>Trit conversations (*.json)</source>
        <translation>Trit-Unterhaltungen (*.json)</translation>
    </message>
    <message>
        <location filename="../qml/Main.qml" line="188"/>
        <source>Open a model file</source>
        <translation>Modelldatei öffnen</translation>
    </message>
    <message>
        <location filename="../qml/Main.qml" line="189"/>
        <source>GGUF models (*.gguf)</source>
        <translation>GGUF-Modelle (*.gguf)</translation>
    </message>
    <message>
        <location filename="../qml/Main.qml" line="123"/>
        <location filename="../qml/Main.qml" line="189"/>
        <source>All files (*)</source>
        <translation>Alle Dateien (*)</translation>
    </message>
</context>
<context>
    <name>MessageBubble</name>
    <message>
        <location filename="../qml/MessageBubble.qml" line="50"/>
        <source>You said: %1</source>
        <translation>Ihre Nachricht: %1</translation>
    </message>
    <message>
        <location filename="../qml/MessageBubble.qml" line="50"/>
        <source>Trit replied: %1</source>
        <translation>Antwort von Trit: %1</translation>
    </message>
    <message>
        <location filename="../qml/MessageBubble.qml" line="110"/>
        <source>Edit your message</source>
        <translation>Nachricht bearbeiten</translation>
    </message>
    <message>
        <location filename="../qml/MessageBubble.qml" line="137"/>
        <source>Save and send</source>
        <translation>Speichern und senden</translation>
    </message>
    <message>
        <location filename="../qml/MessageBubble.qml" line="131"/>
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
    <message>
        <location filename="../qml/MessageBubble.qml" line="189"/>
        <source>Writing a reply</source>
        <translation>Antwort wird geschrieben</translation>
    </message>
    <message>
        <location filename="../qml/MessageBubble.qml" line="237"/>
        <source>Show the previous version of this message</source>
        <translation>Vorherige Version dieser Nachricht anzeigen</translation>
    </message>
    <message>
        <location filename="../qml/MessageBubble.qml" line="242"/>
        <source>%1/%2</source>
        <translation>%1/%2</translation>
    </message>
    <message>
        <location filename="../qml/MessageBubble.qml" line="246"/>
        <source>Version %1 of %2</source>
        <translation>Version %1 von %2</translation>
    </message>
    <message>
        <location filename="../qml/MessageBubble.qml" line="253"/>
        <source>Show the next version of this message</source>
        <translation>Nächste Version dieser Nachricht anzeigen</translation>
    </message>
    <message>
        <location filename="../qml/MessageBubble.qml" line="261"/>
        <source>Copy message</source>
        <translation>Nachricht kopieren</translation>
    </message>
    <message>
        <location filename="../qml/MessageBubble.qml" line="270"/>
        <source>Edit message and answer again</source>
        <translation>Nachricht bearbeiten und neu beantworten</translation>
    </message>
    <message>
        <location filename="../qml/MessageBubble.qml" line="283"/>
        <source>Write this reply again</source>
        <translation>Diese Antwort neu generieren</translation>
    </message>
</context>
<context>
    <name>MessageCodeBlock</name>
    <message>
        <location filename="../qml/MessageCodeBlock.qml" line="43"/>
        <source>code</source>
        <translation>Code</translation>
    </message>
    <message>
        <location filename="../qml/MessageCodeBlock.qml" line="53"/>
        <source>Copy</source>
        <translation>Kopieren</translation>
    </message>
    <message>
        <location filename="../qml/MessageCodeBlock.qml" line="53"/>
        <source>Copied</source>
        <translation>Kopiert</translation>
    </message>
    <message>
        <location filename="../qml/MessageCodeBlock.qml" line="55"/>
        <source>Copy code</source>
        <translation>Code kopieren</translation>
    </message>
    <message>
        <location filename="../qml/MessageCodeBlock.qml" line="76"/>
        <source>Code</source>
        <translation>Code</translation>
    </message>
</context>
<context>
    <name>MessageStats</name>
    <message>
        <location filename="../qml/MessageStats.qml" line="19"/>
        <source>TTFT %1</source>
        <translation>TTFT %1</translation>
    </message>
    <message>
        <location filename="../qml/MessageStats.qml" line="20"/>
        <source>prompt %1 t/s</source>
        <translation>Prompt %1 Token/s</translation>
    </message>
    <message>
        <location filename="../qml/MessageStats.qml" line="21"/>
        <source>%1 t/s</source>
        <translation>%1 Token/s</translation>
    </message>
    <message>
        <location filename="../qml/MessageStats.qml" line="22"/>
        <source>%1 prompt + %2 generated tokens</source>
        <translation>%1 Prompt- + %2 generierte Token</translation>
    </message>
    <message>
        <location filename="../qml/MessageStats.qml" line="25"/>
        <source>%1 reused from cache</source>
        <translation>%1 aus dem Cache wiederverwendet</translation>
    </message>
    <message>
        <location filename="../qml/MessageStats.qml" line="30"/>
        <source>stopped at the length limit</source>
        <translation>an der Längengrenze angehalten</translation>
    </message>
    <message>
        <location filename="../qml/MessageStats.qml" line="31"/>
        <source>stopped</source>
        <translation>angehalten</translation>
    </message>
    <message>
        <location filename="../qml/MessageStats.qml" line="32"/>
        <source>context full</source>
        <translation>Kontext voll</translation>
    </message>
    <message>
        <location filename="../qml/MessageStats.qml" line="33"/>
        <source>interrupted: Trit stopped while writing it</source>
        <translation>unterbrochen: Trit wurde während des Schreibens beendet</translation>
    </message>
    <message>
        <location filename="../qml/MessageStats.qml" line="43"/>
        <source>Reply statistics: %1</source>
        <translation>Antwortstatistik: %1</translation>
    </message>
</context>
<context>
    <name>ModelCard</name>
    <message>
        <location filename="../qml/ModelCard.qml" line="67"/>
        <source>Fits your GPU</source>
        <translation>Passt auf Ihre GPU</translation>
    </message>
    <message>
        <location filename="../qml/ModelCard.qml" line="67"/>
        <source>Too large for your GPU</source>
        <translation>Zu groß für Ihre GPU</translation>
    </message>
    <message>
        <location filename="../qml/ModelCard.qml" line="82"/>
        <source>On disk</source>
        <translation>Auf dem Datenträger</translation>
    </message>
    <message>
        <location filename="../qml/ModelCard.qml" line="83"/>
        <source>Downloading</source>
        <translation>Wird heruntergeladen</translation>
    </message>
    <message>
        <location filename="../qml/ModelCard.qml" line="84"/>
        <source>Paused</source>
        <translation>Pausiert</translation>
    </message>
    <message>
        <location filename="../qml/ModelCard.qml" line="85"/>
        <source>Failed</source>
        <translation>Fehlgeschlagen</translation>
    </message>
    <message>
        <location filename="../qml/ModelCard.qml" line="106"/>
        <source>%1 parameters</source>
        <translation>%1 Parameter</translation>
    </message>
    <message>
        <location filename="../qml/ModelCard.qml" line="107"/>
        <source>%1 architecture</source>
        <translation>Architektur %1</translation>
    </message>
    <message>
        <location filename="../qml/ModelCard.qml" line="108"/>
        <source>%1 weights</source>
        <translation>Gewichte im Format %1</translation>
    </message>
    <message>
        <location filename="../qml/ModelCard.qml" line="110"/>
        <source>%1 tokens of context</source>
        <translation>%1 Token Kontext</translation>
    </message>
    <message>
        <location filename="../qml/ModelCard.qml" line="111"/>
        <source>licence: %1</source>
        <translation>Lizenz: %1</translation>
    </message>
    <message>
        <location filename="../qml/ModelCard.qml" line="134"/>
        <source>Show in the file manager</source>
        <translation>Im Dateimanager zeigen</translation>
    </message>
    <message>
        <location filename="../qml/ModelCard.qml" line="150"/>
        <source>Download of %1</source>
        <translation>Download von %1</translation>
    </message>
    <message>
        <location filename="../qml/ModelCard.qml" line="227"/>
        <source>Try again</source>
        <translation>Erneut versuchen</translation>
    </message>
    <message>
        <location filename="../qml/ModelCard.qml" line="227"/>
        <source>Download</source>
        <translation>Herunterladen</translation>
    </message>
    <message>
        <location filename="../qml/ModelCard.qml" line="228"/>
        <source>Download %1</source>
        <translation>%1 herunterladen</translation>
    </message>
    <message>
        <location filename="../qml/ModelCard.qml" line="237"/>
        <source>Pause</source>
        <translation>Pausieren</translation>
    </message>
    <message>
        <location filename="../qml/ModelCard.qml" line="246"/>
        <source>Resume</source>
        <translation>Fortsetzen</translation>
    </message>
    <message>
        <location filename="../qml/ModelCard.qml" line="254"/>
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
    <message>
        <location filename="../qml/ModelCard.qml" line="262"/>
        <source>Remove…</source>
        <translation>Entfernen…</translation>
    </message>
    <message>
        <location filename="../qml/ModelCard.qml" line="271"/>
        <source>Use</source>
        <translation>Verwenden</translation>
    </message>
    <message>
        <location filename="../qml/ModelCard.qml" line="272"/>
        <source>Chat with %1</source>
        <translation>Mit %1 chatten</translation>
    </message>
</context>
<context>
    <name>ModelManagerPage</name>
    <message>
        <location filename="../qml/ModelManagerPage.qml" line="53"/>
        <source>Not a GGUF model file: %1</source>
        <translation>Keine GGUF-Modelldatei: %1</translation>
    </message>
    <message>
        <location filename="../qml/ModelManagerPage.qml" line="108"/>
        <source>Back to the chat (Esc)</source>
        <translation>Zurück zum Chat (Esc)</translation>
    </message>
    <message>
        <location filename="../qml/ModelManagerPage.qml" line="114"/>
        <source>Models</source>
        <translation>Modelle</translation>
    </message>
    <message>
        <location filename="../qml/ModelManagerPage.qml" line="132"/>
        <source>Import…</source>
        <translation>Importieren…</translation>
    </message>
    <message>
        <location filename="../qml/ModelManagerPage.qml" line="133"/>
        <source>Import a .gguf model file</source>
        <translation>Eine .gguf-Modelldatei importieren</translation>
    </message>
    <message>
        <location filename="../qml/ModelManagerPage.qml" line="173"/>
        <source>Which models fit is unknown: %1</source>
        <translation>Welche Modelle passen, ist unbekannt: %1</translation>
    </message>
    <message>
        <location filename="../qml/ModelManagerPage.qml" line="174"/>
        <source>Looking for your GPU…</source>
        <translation>Suche nach Ihrer GPU…</translation>
    </message>
    <message>
        <location filename="../qml/ModelManagerPage.qml" line="202"/>
        <source>Dismiss</source>
        <translation>Schließen</translation>
    </message>
    <message>
        <location filename="../qml/ModelManagerPage.qml" line="212"/>
        <source>On this computer</source>
        <translation>Auf diesem Computer</translation>
    </message>
    <message>
        <location filename="../qml/ModelManagerPage.qml" line="225"/>
        <source>Models folder: %1</source>
        <translation>Modellordner: %1</translation>
    </message>
    <message>
        <location filename="../qml/ModelManagerPage.qml" line="233"/>
        <source>Open folder</source>
        <translation>Ordner öffnen</translation>
    </message>
    <message>
        <location filename="../qml/ModelManagerPage.qml" line="257"/>
        <source>No models yet. Download one below, or drop a .gguf file anywhere on this page.</source>
        <translation>Noch keine Modelle. Laden Sie unten eines herunter oder ziehen Sie eine .gguf-Datei auf diese Seite.</translation>
    </message>
    <message>
        <location filename="../qml/ModelManagerPage.qml" line="265"/>
        <source>Available to download</source>
        <translation>Zum Herunterladen</translation>
    </message>
    <message>
        <location filename="../qml/ModelManagerPage.qml" line="290"/>
        <source>Have a .gguf file already? Drop it here or use Import…: Trit checks that it can run it, then copies it into the models folder.</source>
        <translation>Sie haben schon eine .gguf-Datei? Ziehen Sie sie hierher oder nutzen Sie Importieren…: Trit prüft, ob es sie ausführen kann, und kopiert sie dann in den Modellordner.</translation>
    </message>
    <message>
        <location filename="../qml/ModelManagerPage.qml" line="321"/>
        <source>Drop to import into the models folder</source>
        <translation>Loslassen, um in den Modellordner zu importieren</translation>
    </message>
    <message>
        <location filename="../qml/ModelManagerPage.qml" line="329"/>
        <source>Import a GGUF model</source>
        <translation>GGUF-Modell importieren</translation>
    </message>
    <message>
        <location filename="../qml/ModelManagerPage.qml" line="331"/>
        <source>GGUF models (*.gguf)</source>
        <translation>GGUF-Modelle (*.gguf)</translation>
    </message>
    <message>
        <location filename="../qml/ModelManagerPage.qml" line="342"/>
        <source>Remove model?</source>
        <translation>Modell entfernen?</translation>
    </message>
    <message>
        <location filename="../qml/ModelManagerPage.qml" line="348"/>
        <source>%1 will be deleted from disk. You can download it again later.</source>
        <translation>%1 wird vom Datenträger gelöscht. Sie können es später erneut herunterladen.</translation>
    </message>
    <message>
        <location filename="../qml/ModelManagerPage.qml" line="361"/>
        <source>A file named %1 is already there</source>
        <translation>Eine Datei namens %1 ist bereits vorhanden</translation>
    </message>
    <message>
        <location filename="../qml/ModelManagerPage.qml" line="369"/>
        <source>The models folder already holds a different file named %1; it was kept and %2 was not downloaded. Keep both (your file is renamed), or replace your file with the download?</source>
        <translation>Der Modellordner enthält bereits eine andere Datei namens %1; sie wurde behalten und %2 wurde nicht heruntergeladen. Beide behalten (Ihre Datei wird umbenannt) oder Ihre Datei durch den Download ersetzen?</translation>
    </message>
    <message>
        <location filename="../qml/ModelManagerPage.qml" line="376"/>
        <source>Keep both</source>
        <translation>Beide behalten</translation>
    </message>
    <message>
        <location filename="../qml/ModelManagerPage.qml" line="384"/>
        <source>Replace…</source>
        <translation>Ersetzen…</translation>
    </message>
    <message>
        <location filename="../qml/ModelManagerPage.qml" line="392"/>
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
    <message>
        <location filename="../qml/ModelManagerPage.qml" line="404"/>
        <source>Replace your file?</source>
        <translation>Ihre Datei ersetzen?</translation>
    </message>
    <message>
        <location filename="../qml/ModelManagerPage.qml" line="410"/>
        <source>Your file %1 will be deleted from disk and replaced by the downloaded %2. This cannot be undone.</source>
        <translation>Ihre Datei %1 wird vom Datenträger gelöscht und durch das heruntergeladene %2 ersetzt. Dies kann nicht rückgängig gemacht werden.</translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="21"/>
        <source>Settings</source>
        <translation>Einstellungen</translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="27"/>
        <source>Automatic (best GPU)</source>
        <translation>Automatisch (beste GPU)</translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="57"/>
        <source>Sampling</source>
        <translation>Sampling</translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="58"/>
        <location filename="../qml/SettingsDialog.qml" line="66"/>
        <source>Temperature</source>
        <translation>Temperatur</translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="69"/>
        <location filename="../qml/SettingsDialog.qml" line="74"/>
        <source>Top-k</source>
        <translation>Top-k</translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="77"/>
        <location filename="../qml/SettingsDialog.qml" line="84"/>
        <source>Top-p</source>
        <translation>Top-p</translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="87"/>
        <location filename="../qml/SettingsDialog.qml" line="94"/>
        <source>Min-p</source>
        <translation>Min-p</translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="97"/>
        <location filename="../qml/SettingsDialog.qml" line="104"/>
        <source>Repetition penalty</source>
        <translation>Wiederholungsstrafe</translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="107"/>
        <source>Longest reply (tokens)</source>
        <translation>Längste Antwort (Token)</translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="112"/>
        <source>Longest reply in tokens</source>
        <translation>Längste Antwort in Token</translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="117"/>
        <source>Restore the recommended sampling settings</source>
        <translation>Empfohlene Sampling-Einstellungen wiederherstellen</translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="121"/>
        <location filename="../qml/SettingsDialog.qml" line="128"/>
        <source>System prompt for new chats</source>
        <translation>Systemprompt für neue Chats</translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="127"/>
        <source>Optional instructions given to the model before every chat</source>
        <translation>Optionale Anweisungen, die das Modell vor jedem Chat erhält</translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="137"/>
        <source>Engine</source>
        <translation>Engine</translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="138"/>
        <source>Run on</source>
        <translation>Ausführen auf</translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="142"/>
        <source>GPU (Vulkan)</source>
        <translation>GPU (Vulkan)</translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="142"/>
        <source>CPU (slow reference engine)</source>
        <translation>CPU (langsame Referenz-Engine)</translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="144"/>
        <source>Engine backend</source>
        <translation>Engine-Backend</translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="147"/>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="153"/>
        <source>GPU device</source>
        <translation>GPU-Gerät</translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="164"/>
        <source>Context length (0: the model&apos;s)</source>
        <translation>Kontextlänge (0: die des Modells)</translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="170"/>
        <source>Context length in tokens</source>
        <translation>Kontextlänge in Token</translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="177"/>
        <source>Engine changes apply when this dialog closes: the model is loaded again.</source>
        <translation>Änderungen an der Engine gelten beim Schließen dieses Dialogs: Das Modell wird dann neu geladen.</translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="192"/>
        <source>Models</source>
        <translation>Modelle</translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="195"/>
        <location filename="../qml/SettingsDialog.qml" line="205"/>
        <source>Models folder</source>
        <translation>Modellordner</translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="210"/>
        <source>Browse…</source>
        <translation>Durchsuchen…</translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="211"/>
        <location filename="../qml/SettingsDialog.qml" line="343"/>
        <source>Choose the models folder</source>
        <translation>Modellordner auswählen</translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="229"/>
        <location filename="../qml/SettingsDialog.qml" line="244"/>
        <source>Local API server</source>
        <translation>Lokaler API-Server</translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="236"/>
        <source>Programs and editors can use the model loaded in this window through an OpenAI-compatible API (docs/api.md). Chat and API requests take turns, in the order they come.</source>
        <translation>Programme und Editoren können das in diesem Fenster geladene Modell über eine OpenAI-kompatible API nutzen (docs/api.md). Chat- und API-Anfragen kommen abwechselnd an die Reihe, in der Reihenfolge ihres Eingangs.</translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="239"/>
        <source>API server</source>
        <translation>API-Server</translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="243"/>
        <source>On</source>
        <translation>An</translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="243"/>
        <source>Off</source>
        <translation>Aus</translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="247"/>
        <source>Port</source>
        <translation>Port</translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="255"/>
        <source>API server port</source>
        <translation>Port des API-Servers</translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="258"/>
        <location filename="../qml/SettingsDialog.qml" line="268"/>
        <source>API key</source>
        <translation>API-Schlüssel</translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="266"/>
        <source>None (only this computer may connect)</source>
        <translation>Keiner (nur dieser Computer darf sich verbinden)</translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="273"/>
        <source>Generate</source>
        <translation>Erzeugen</translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="275"/>
        <source>Generate a new API key</source>
        <translation>Einen neuen API-Schlüssel erzeugen</translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="285"/>
        <source>Allow other machines (they must send the API key)</source>
        <translation>Andere Rechner zulassen (sie müssen den API-Schlüssel senden)</translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="303"/>
        <source>Copy URL</source>
        <translation>URL kopieren</translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="304"/>
        <source>Copy the API server&apos;s URL</source>
        <translation>Die URL des API-Servers kopieren</translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="309"/>
        <source>Appearance</source>
        <translation>Darstellung</translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="310"/>
        <location filename="../qml/SettingsDialog.qml" line="317"/>
        <source>Theme</source>
        <translation>Design</translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="315"/>
        <source>Follow the system</source>
        <translation>Systemvorgabe</translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="315"/>
        <source>Light</source>
        <translation>Hell</translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="315"/>
        <source>Dark</source>
        <translation>Dunkel</translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="320"/>
        <source>Motion</source>
        <translation>Bewegung</translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="323"/>
        <source>Reduce motion</source>
        <translation>Bewegung reduzieren</translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="325"/>
        <source>No transitions or animations in the window</source>
        <translation>Keine Übergänge oder Animationen im Fenster</translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="329"/>
        <source>Font size</source>
        <translation>Schriftgröße</translation>
    </message>
    <message>
        <location filename="../qml/SettingsDialog.qml" line="334"/>
        <source>Font size in points</source>
        <translation>Schriftgröße in Punkt</translation>
    </message>
</context>
<context>
    <name>Sidebar</name>
    <message>
        <location filename="../qml/Sidebar.qml" line="115"/>
        <source>New chat</source>
        <translation>Neuer Chat</translation>
    </message>
    <message>
        <location filename="../qml/Sidebar.qml" line="117"/>
        <source>Start a new chat (Ctrl+N)</source>
        <translation>Neuen Chat beginnen (Strg+N)</translation>
    </message>
    <message>
        <location filename="../qml/Sidebar.qml" line="161"/>
        <location filename="../qml/Sidebar.qml" line="181"/>
        <source>Conversations</source>
        <translation>Unterhaltungen</translation>
    </message>
    <message>
        <location filename="../qml/Sidebar.qml" line="307"/>
        <source>No conversations yet</source>
        <translation>Noch keine Unterhaltungen</translation>
    </message>
    <message>
        <location filename="../qml/Sidebar.qml" line="53"/>
        <source>Rename</source>
        <translation>Umbenennen</translation>
    </message>
    <message>
        <location filename="../qml/Sidebar.qml" line="58"/>
        <source>Unpin</source>
        <translation>Nicht mehr anheften</translation>
    </message>
    <message>
        <location filename="../qml/Sidebar.qml" line="58"/>
        <source>Pin to the top</source>
        <translation>Oben anheften</translation>
    </message>
    <message>
        <location filename="../qml/Sidebar.qml" line="64"/>
        <source>Export as Markdown…</source>
        <translation>Als Markdown exportieren…</translation>
    </message>
    <message>
        <location filename="../qml/Sidebar.qml" line="69"/>
        <source>Export as JSON…</source>
        <translation>Als JSON exportieren…</translation>
    </message>
    <message>
        <location filename="../qml/Sidebar.qml" line="75"/>
        <source>Delete</source>
        <translation>Löschen</translation>
    </message>
    <message>
        <location filename="../qml/Sidebar.qml" line="91"/>
        <source>Trit</source>
        <translation>Trit</translation>
    </message>
    <message>
        <location filename="../qml/Sidebar.qml" line="102"/>
        <source>Import a conversation from a JSON file</source>
        <translation>Unterhaltung aus einer JSON-Datei importieren</translation>
    </message>
    <message>
        <location filename="../qml/Sidebar.qml" line="127"/>
        <source>Search conversations</source>
        <translation>Unterhaltungen durchsuchen</translation>
    </message>
    <message>
        <location filename="../qml/Sidebar.qml" line="130"/>
        <source>Search all messages (Ctrl+K)</source>
        <translation>Alle Nachrichten durchsuchen (Strg+K)</translation>
    </message>
    <message>
        <location filename="../qml/Sidebar.qml" line="134"/>
        <source>Search all messages of all conversations</source>
        <translation>Alle Nachrichten aller Unterhaltungen durchsuchen</translation>
    </message>
    <message>
        <location filename="../qml/Sidebar.qml" line="161"/>
        <source>Matches</source>
        <translation>Treffer</translation>
    </message>
    <message>
        <location filename="../qml/Sidebar.qml" line="219"/>
        <source>%1, pinned</source>
        <translation>%1, angeheftet</translation>
    </message>
    <message>
        <location filename="../qml/Sidebar.qml" line="220"/>
        <source>Enter opens it; F2 renames, Delete deletes, the Menu key shows more</source>
        <translation>Eingabe öffnet sie; F2 benennt um, Entf löscht, die Menütaste zeigt mehr</translation>
    </message>
    <message>
        <location filename="../qml/Sidebar.qml" line="274"/>
        <source>pinned</source>
        <translation>angeheftet</translation>
    </message>
    <message>
        <location filename="../qml/Sidebar.qml" line="281"/>
        <source>New title for the conversation</source>
        <translation>Neuer Titel der Unterhaltung</translation>
    </message>
    <message>
        <location filename="../qml/Sidebar.qml" line="296"/>
        <source>More actions for %1</source>
        <translation>Weitere Aktionen für %1</translation>
    </message>
    <message>
        <location filename="../qml/Sidebar.qml" line="307"/>
        <source>Conversations are not being saved</source>
        <translation>Unterhaltungen werden nicht gespeichert</translation>
    </message>
    <message>
        <location filename="../qml/Sidebar.qml" line="324"/>
        <source>Search results</source>
        <translation>Suchergebnisse</translation>
    </message>
    <message>
        <location filename="../qml/Sidebar.qml" line="340"/>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <location filename="../qml/Sidebar.qml" line="349"/>
        <source>New conversation</source>
        <translation>Neue Unterhaltung</translation>
    </message>
    <message>
        <location filename="../qml/Sidebar.qml" line="374"/>
        <source>No message matches</source>
        <translation>Keine passende Nachricht</translation>
    </message>
    <message>
        <location filename="../qml/Sidebar.qml" line="394"/>
        <source>Deleted “%1”</source>
        <translation>„%1“ gelöscht</translation>
    </message>
    <message>
        <location filename="../qml/Sidebar.qml" line="400"/>
        <source>Undo</source>
        <translation>Rückgängig</translation>
    </message>
    <message>
        <location filename="../qml/Sidebar.qml" line="401"/>
        <source>Undo deleting %1</source>
        <translation>Löschen von %1 rückgängig machen</translation>
    </message>
    <message>
        <location filename="../qml/Sidebar.qml" line="416"/>
        <source>Models</source>
        <translation>Modelle</translation>
    </message>
    <message>
        <location filename="../qml/Sidebar.qml" line="418"/>
        <source>Manage models</source>
        <translation>Modelle verwalten</translation>
    </message>
    <message>
        <location filename="../qml/Sidebar.qml" line="429"/>
        <source>Settings…</source>
        <translation>Einstellungen…</translation>
    </message>
    <message>
        <location filename="../qml/Sidebar.qml" line="431"/>
        <source>Settings (Ctrl+,)</source>
        <translation>Einstellungen (Strg+,)</translation>
    </message>
    <message>
        <location filename="../qml/Sidebar.qml" line="442"/>
        <source>About Trit</source>
        <translation>Über Trit</translation>
    </message>
    <message>
        <location filename="../qml/Sidebar.qml" line="444"/>
        <source>About Trit (F1): version, GPU and licences</source>
        <translation>Über Trit (F1): Version, GPU und Lizenzen</translation>
    </message>
</context>
<context>
    <name>StatusBar</name>
    <message>
        <location filename="../qml/StatusBar.qml" line="33"/>
        <source>%1 on %2</source>
        <translation>%1 auf %2</translation>
    </message>
    <message>
        <location filename="../qml/StatusBar.qml" line="34"/>
        <source>Loading %1…</source>
        <translation>%1 wird geladen…</translation>
    </message>
    <message>
        <location filename="../qml/StatusBar.qml" line="35"/>
        <source>The model could not be loaded</source>
        <translation>Das Modell konnte nicht geladen werden</translation>
    </message>
    <message>
        <location filename="../qml/StatusBar.qml" line="36"/>
        <source>No model</source>
        <translation>Kein Modell</translation>
    </message>
    <message>
        <location filename="../qml/StatusBar.qml" line="54"/>
        <source>context %1 / %2</source>
        <translation>Kontext %1 / %2</translation>
    </message>
    <message>
        <location filename="../qml/StatusBar.qml" line="62"/>
        <source>API: %1</source>
        <translation>API: %1</translation>
    </message>
    <message>
        <location filename="../qml/StatusBar.qml" line="63"/>
        <source>API server: %1</source>
        <translation>API-Server: %1</translation>
    </message>
    <message>
        <location filename="../qml/StatusBar.qml" line="84"/>
        <source>Reading the prompt</source>
        <translation>Prompt wird gelesen</translation>
    </message>
    <message>
        <location filename="../qml/StatusBar.qml" line="89"/>
        <source>prompt %1/%2 · %3 t/s</source>
        <translation>Prompt %1/%2 · %3 Token/s</translation>
    </message>
    <message>
        <location filename="../qml/StatusBar.qml" line="106"/>
        <source>%1 t/s · %2 tokens</source>
        <translation>%1 Token/s · %2 Token</translation>
    </message>
    <message>
        <location filename="../qml/StatusBar.qml" line="110"/>
        <source>Generation speed: %1</source>
        <translation>Generierungsgeschwindigkeit: %1</translation>
    </message>
</context>
<context>
    <name>StorageBanner</name>
    <message>
        <location filename="../qml/StorageBanner.qml" line="38"/>
        <source>Retry</source>
        <translation>Wiederholen</translation>
    </message>
    <message>
        <location filename="../qml/StorageBanner.qml" line="39"/>
        <source>Try to open the conversation database again</source>
        <translation>Erneut versuchen, die Unterhaltungsdatenbank zu öffnen</translation>
    </message>
    <message>
        <location filename="../qml/StorageBanner.qml" line="45"/>
        <source>Dismiss</source>
        <translation>Schließen</translation>
    </message>
</context>
<context>
    <name>SystemPromptPanel</name>
    <message>
        <location filename="../qml/SystemPromptPanel.qml" line="36"/>
        <source>System prompt</source>
        <translation>Systemprompt</translation>
    </message>
    <message>
        <location filename="../qml/SystemPromptPanel.qml" line="45"/>
        <source>Instructions the model reads before this conversation. New chats start with the one in Settings.</source>
        <translation>Anweisungen, die das Modell vor dieser Unterhaltung liest. Neue Chats beginnen mit dem aus den Einstellungen.</translation>
    </message>
    <message>
        <location filename="../qml/SystemPromptPanel.qml" line="56"/>
        <source>For example: Answer briefly, in plain language.</source>
        <translation>Zum Beispiel: Antworte kurz und in einfacher Sprache.</translation>
    </message>
    <message>
        <location filename="../qml/SystemPromptPanel.qml" line="60"/>
        <source>System prompt of this conversation</source>
        <translation>Systemprompt dieser Unterhaltung</translation>
    </message>
    <message>
        <location filename="../qml/SystemPromptPanel.qml" line="73"/>
        <source>Applies from the next reply.</source>
        <translation>Gilt ab der nächsten Antwort.</translation>
    </message>
    <message>
        <location filename="../qml/SystemPromptPanel.qml" line="82"/>
        <source>Done</source>
        <translation>Fertig</translation>
    </message>
</context>
<context>
    <name>trit::about::AboutInfo</name>
    <message>
        <location filename="../app/src/about/about_info.cpp" line="46"/>
        <source>The Vulkan loader reported no device.</source>
        <translation>Der Vulkan-Loader hat kein Gerät gemeldet.</translation>
    </message>
    <message>
        <location filename="../app/src/about/about_info.cpp" line="51"/>
        <source>Listing the Vulkan devices failed: %1</source>
        <translation>Die Vulkan-Geräte konnten nicht aufgelistet werden: %1</translation>
    </message>
</context>
<context>
    <name>trit::api::ApiServer</name>
    <message>
        <location filename="../app/src/server/api_server.cpp" line="78"/>
        <source>Not started: other machines may connect only with an API key. Set a key, or turn off “Allow other machines”.</source>
        <translation>Nicht gestartet: Andere Rechner dürfen sich nur mit einem API-Schlüssel verbinden. Legen Sie einen Schlüssel fest oder schalten Sie „Andere Rechner zulassen“ aus.</translation>
    </message>
    <message>
        <location filename="../app/src/server/api_server.cpp" line="80"/>
        <source>Not started: %1</source>
        <translation>Nicht gestartet: %1</translation>
    </message>
    <message>
        <location filename="../app/src/server/api_server.cpp" line="113"/>
        <source>Not started: port %1 is in use by another program, or reserved for the system (ports below 1024). Choose another port.</source>
        <translation>Nicht gestartet: Port %1 wird von einem anderen Programm verwendet oder ist dem System vorbehalten (Ports unter 1024). Wählen Sie einen anderen Port.</translation>
    </message>
    <message>
        <location filename="../app/src/server/api_server.cpp" line="184"/>
        <source>Listening on %1</source>
        <translation>Empfängt auf %1</translation>
    </message>
    <message>
        <location filename="../app/src/server/api_server.cpp" line="185"/>
        <source>Starting…</source>
        <translation>Wird gestartet…</translation>
    </message>
    <message>
        <location filename="../app/src/server/api_server.cpp" line="186"/>
        <source>Stopping…</source>
        <translation>Wird beendet…</translation>
    </message>
    <message>
        <location filename="../app/src/server/api_server.cpp" line="188"/>
        <source>Off</source>
        <translation>Aus</translation>
    </message>
</context>
<context>
    <name>trit::chat::ChatController</name>
    <message>
        <location filename="../app/src/chat/chat_controller.cpp" line="73"/>
        <source>This conversation could not be saved: %1. It stays on screen; saving resumes with the next conversation.</source>
        <translation>Diese Unterhaltung konnte nicht gespeichert werden: %1. Sie bleibt sichtbar; ab der nächsten Unterhaltung wird wieder gespeichert.</translation>
    </message>
    <message>
        <location filename="../app/src/chat/chat_controller.cpp" line="263"/>
        <source>That conversation no longer exists.</source>
        <translation>Diese Unterhaltung existiert nicht mehr.</translation>
    </message>
    <message>
        <location filename="../app/src/chat/chat_controller.cpp" line="288"/>
        <source>Saved conversations are not available: the conversation database could not be opened.</source>
        <translation>Gespeicherte Unterhaltungen sind nicht verfügbar: Die Unterhaltungsdatenbank konnte nicht geöffnet werden.</translation>
    </message>
    <message>
        <location filename="../app/src/chat/chat_controller.cpp" line="348"/>
        <source>A reply is still being written. Stop it first.</source>
        <translation>Es wird noch eine Antwort geschrieben. Halten Sie sie zuerst an.</translation>
    </message>
    <message>
        <location filename="../app/src/chat/chat_controller.cpp" line="352"/>
        <source>No model is loaded. Open a model in the model manager first.</source>
        <translation>Es ist kein Modell geladen. Öffnen Sie zuerst ein Modell in der Modellverwaltung.</translation>
    </message>
    <message numerus="yes">
        <location filename="../app/src/chat/chat_controller.cpp" line="530"/>
        <source>The conversation no longer fits in the model&apos;s context of %n tokens. Start a new conversation, or drop the oldest messages to continue.</source>
        <translation>
            <numerusform>Die Unterhaltung passt nicht mehr in den Kontext des Modells von %n Token. Beginnen Sie eine neue Unterhaltung oder entfernen Sie die ältesten Nachrichten, um fortzufahren.</numerusform>
            <numerusform>Die Unterhaltung passt nicht mehr in den Kontext des Modells von %n Token. Beginnen Sie eine neue Unterhaltung oder entfernen Sie die ältesten Nachrichten, um fortzufahren.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../app/src/chat/chat_controller.cpp" line="524"/>
        <source>This message is %n tokens too long: with it the prompt takes %1 tokens, and the model&apos;s context holds %2. Edit the message to shorten it, or raise the context length in Settings.</source>
        <translation>
            <numerusform>Diese Nachricht ist %n Token zu lang: mit ihr umfasst die Eingabe %1 Token, der Kontext des Modells fasst %2. Kürzen Sie die Nachricht, indem Sie sie bearbeiten, oder erhöhen Sie die Kontextlänge in den Einstellungen.</numerusform>
            <numerusform>Diese Nachricht ist %n Token zu lang: mit ihr umfasst die Eingabe %1 Token, der Kontext des Modells fasst %2. Kürzen Sie die Nachricht, indem Sie sie bearbeiten, oder erhöhen Sie die Kontextlänge in den Einstellungen.</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../app/src/conversations/conversation_records.cpp" line="75"/>
        <source>This reply ended with an error.</source>
        <translation>Diese Antwort wurde mit einem Fehler beendet.</translation>
    </message>
</context>
<context>
    <name>trit::chat::ConversationsBridge</name>
    <message>
        <location filename="../app/src/conversations/conversations_bridge.cpp" line="58"/>
        <source>Conversations are not being saved: %1. This chat is kept in memory only and is lost when Trit closes. Fix the folder (or start Trit with --data-dir) and choose Retry.</source>
        <translation>Unterhaltungen werden nicht gespeichert: %1. Dieser Chat wird nur im Arbeitsspeicher gehalten und geht verloren, wenn Trit beendet wird. Beheben Sie das Problem mit dem Ordner (oder starten Sie Trit mit --data-dir) und wählen Sie „Wiederholen“.</translation>
    </message>
    <message>
        <location filename="../app/src/conversations/conversations_bridge.cpp" line="79"/>
        <source>Conversations are not being saved: the database %1 is in use by another program (%2). This chat is kept in memory only. Close the other program and choose Retry.</source>
        <translation>Unterhaltungen werden nicht gespeichert: Die Datenbank %1 wird von einem anderen Programm verwendet (%2). Dieser Chat wird nur im Arbeitsspeicher gehalten. Schließen Sie das andere Programm und wählen Sie „Wiederholen“.</translation>
    </message>
    <message>
        <location filename="../app/src/conversations/conversations_bridge.cpp" line="84"/>
        <source>Conversations are not being saved: the database %1 cannot be opened (%2). This chat is kept in memory only and is lost when Trit closes. Choose Retry once it is fixed.</source>
        <translation>Unterhaltungen werden nicht gespeichert: Die Datenbank %1 kann nicht geöffnet werden (%2). Dieser Chat wird nur im Arbeitsspeicher gehalten und geht verloren, wenn Trit beendet wird. Wählen Sie „Wiederholen“, sobald das Problem behoben ist.</translation>
    </message>
    <message>
        <location filename="../app/src/conversations/conversations_bridge.cpp" line="99"/>
        <source>The conversation database was damaged: %1. Your earlier conversations are in that file; new ones are saved in the new database.</source>
        <translation>Die Unterhaltungsdatenbank war beschädigt: %1. Ihre früheren Unterhaltungen befinden sich in dieser Datei; neue werden in der neuen Datenbank gespeichert.</translation>
    </message>
    <message>
        <location filename="../app/src/conversations/conversations_bridge.cpp" line="107"/>
        <source>The conversation database %1 was an empty file (0 bytes), so there were no conversations to show; new ones are saved in it. If you expected conversations here, restore the file from a backup.</source>
        <translation>Die Gesprächsdatenbank %1 war eine leere Datei (0 Byte), daher gab es keine Gespräche anzuzeigen; neue werden darin gespeichert. Wenn Sie hier Gespräche erwartet haben, stellen Sie die Datei aus einer Sicherung wieder her.</translation>
    </message>
    <message numerus="yes">
        <location filename="../app/src/conversations/conversations_bridge.cpp" line="112"/>
        <source>%n reply(s) were cut off when Trit last stopped; the text written so far was kept and is marked as interrupted.</source>
        <translation>
            <numerusform>%n Antwort wurde beim letzten Beenden von Trit abgeschnitten; der bis dahin geschriebene Text wurde behalten und ist als unterbrochen markiert.</numerusform>
            <numerusform>%n Antworten wurden beim letzten Beenden von Trit abgeschnitten; der bis dahin geschriebene Text wurde behalten und ist als unterbrochen markiert.</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../app/src/conversations/conversations_bridge.cpp" line="132"/>
        <source>Cannot export: the conversation database is not open.</source>
        <translation>Export nicht möglich: Die Unterhaltungsdatenbank ist nicht geöffnet.</translation>
    </message>
    <message>
        <location filename="../app/src/conversations/conversations_bridge.cpp" line="143"/>
        <source>Cannot export: unknown format &quot;%1&quot; (markdown or json).</source>
        <translation>Export nicht möglich: unbekanntes Format „%1“ (markdown oder json).</translation>
    </message>
    <message>
        <location filename="../app/src/conversations/conversations_bridge.cpp" line="147"/>
        <location filename="../app/src/conversations/conversations_bridge.cpp" line="150"/>
        <source>Cannot export: %1</source>
        <translation>Export nicht möglich: %1</translation>
    </message>
    <message>
        <location filename="../app/src/conversations/conversations_bridge.cpp" line="155"/>
        <source>Cannot write %1: %2</source>
        <translation>%1 kann nicht geschrieben werden: %2</translation>
    </message>
    <message>
        <location filename="../app/src/conversations/conversations_bridge.cpp" line="164"/>
        <source>Cannot import: the conversation database is not open.</source>
        <translation>Import nicht möglich: Die Unterhaltungsdatenbank ist nicht geöffnet.</translation>
    </message>
    <message>
        <location filename="../app/src/conversations/conversations_bridge.cpp" line="170"/>
        <source>Cannot read %1: %2</source>
        <translation>%1 kann nicht gelesen werden: %2</translation>
    </message>
    <message>
        <location filename="../app/src/conversations/conversations_bridge.cpp" line="174"/>
        <source>Cannot import %1: the file is larger than 256 MiB, which no exported conversation is.</source>
        <translation>%1 kann nicht importiert werden: Die Datei ist größer als 256 MiB; so groß ist keine exportierte Unterhaltung.</translation>
    </message>
    <message>
        <location filename="../app/src/conversations/conversations_bridge.cpp" line="183"/>
        <location filename="../app/src/conversations/conversations_bridge.cpp" line="185"/>
        <source>Cannot import %1: %2</source>
        <translation>%1 kann nicht importiert werden: %2</translation>
    </message>
</context>
<context>
    <name>trit::chat::EngineWorker</name>
    <message>
        <location filename="../app/src/engine_thread/engine_worker.cpp" line="73"/>
        <source>The model file %1 does not exist. Choose another file or download a model in the model manager.</source>
        <translation>Die Modelldatei %1 existiert nicht. Wählen Sie eine andere Datei oder laden Sie ein Modell in der Modellverwaltung herunter.</translation>
    </message>
    <message>
        <location filename="../app/src/engine_thread/engine_worker.cpp" line="107"/>
        <source>CPU (reference engine)</source>
        <translation>CPU (Referenz-Engine)</translation>
    </message>
    <message>
        <location filename="../app/src/engine_thread/engine_worker.cpp" line="116"/>
        <source>The model could not be loaded: %1 Choose another model file, or download it again in the model manager.</source>
        <translation>Das Modell konnte nicht geladen werden: %1 Wählen Sie eine andere Modelldatei oder laden Sie sie in der Modellverwaltung erneut herunter.</translation>
    </message>
    <message>
        <location filename="../app/src/engine_thread/engine_worker.cpp" line="121"/>
        <source>The GPU could not be used: %1 In Settings, choose another device or the CPU engine.</source>
        <translation>Die GPU konnte nicht verwendet werden: %1 Wählen Sie in den Einstellungen ein anderes Gerät oder die CPU-Engine.</translation>
    </message>
    <message>
        <location filename="../app/src/engine_thread/engine_worker.cpp" line="126"/>
        <source>The model could not be loaded: %1</source>
        <translation>Das Modell konnte nicht geladen werden: %1</translation>
    </message>
    <message>
        <location filename="../app/src/engine_thread/engine_worker.cpp" line="133"/>
        <source>%1 of weights mapped in RAM</source>
        <translation>%1 Gewichte im RAM eingeblendet</translation>
    </message>
    <message>
        <location filename="../app/src/engine_thread/engine_worker.cpp" line="146"/>
        <source>%1 of %2 GPU memory in use</source>
        <translation>%1 von %2 GPU-Speicher belegt</translation>
    </message>
    <message>
        <location filename="../app/src/engine_thread/engine_worker.cpp" line="148"/>
        <source>%1 of weights on a device with %2</source>
        <translation>%1 Gewichte auf einem Gerät mit %2</translation>
    </message>
    <message>
        <location filename="../app/src/engine_thread/engine_worker.cpp" line="151"/>
        <source>%1 of weights</source>
        <translation>%1 Gewichte</translation>
    </message>
    <message>
        <location filename="../app/src/engine_thread/engine_worker.cpp" line="188"/>
        <source>No model is loaded. Open a model first.</source>
        <translation>Es ist kein Modell geladen. Öffnen Sie zuerst ein Modell.</translation>
    </message>
    <message>
        <location filename="../app/src/engine_thread/engine_worker.cpp" line="252"/>
        <source>The engine stopped with an error: %1</source>
        <translation>Die Engine wurde mit einem Fehler beendet: %1</translation>
    </message>
</context>
<context>
    <name>trit::models::ModelListModel</name>
    <message>
        <location filename="../app/src/models/model_list_model.cpp" line="46"/>
        <source>%1 of %2</source>
        <translation>%1 von %2</translation>
    </message>
    <message>
        <location filename="../app/src/models/model_list_model.cpp" line="50"/>
        <source>%1/s</source>
        <translation>%1/s</translation>
    </message>
    <message>
        <location filename="../app/src/models/model_list_model.cpp" line="53"/>
        <source>%1 left</source>
        <translation>noch %1</translation>
    </message>
    <message>
        <location filename="../app/src/models/model_list_model.cpp" line="85"/>
        <source>fits (needs %1 of %2 free)</source>
        <translation>passt (benötigt %1 von %2 frei)</translation>
    </message>
    <message>
        <location filename="../app/src/models/model_list_model.cpp" line="86"/>
        <source>fits (needs %1 of %2 on the GPU)</source>
        <translation>passt (benötigt %1 von %2 auf der GPU)</translation>
    </message>
    <message>
        <location filename="../app/src/models/model_list_model.cpp" line="87"/>
        <source>does not fit (needs %1, only %2 free)</source>
        <translation>passt nicht (benötigt %1, nur %2 frei)</translation>
    </message>
    <message>
        <location filename="../app/src/models/model_list_model.cpp" line="88"/>
        <source>does not fit (needs %1, the GPU has %2)</source>
        <translation>passt nicht (benötigt %1, die GPU hat %2)</translation>
    </message>
</context>
<context>
    <name>trit::models::ModelManagerBridge</name>
    <message>
        <location filename="../app/src/models/model_manager_bridge.cpp" line="30"/>
        <source>it does not exist</source>
        <translation>der Pfad existiert nicht</translation>
    </message>
    <message>
        <location filename="../app/src/models/model_manager_bridge.cpp" line="31"/>
        <source>it is a file, not a folder</source>
        <translation>das ist eine Datei, kein Ordner</translation>
    </message>
    <message>
        <location filename="../app/src/models/model_manager_bridge.cpp" line="33"/>
        <source>Trit cannot write to it (%1)</source>
        <translation>Trit kann dort nicht schreiben (%1)</translation>
    </message>
    <message>
        <location filename="../app/src/models/model_manager_bridge.cpp" line="219"/>
        <source>GPU memory unknown: %1</source>
        <translation>GPU-Speicher unbekannt: %1</translation>
    </message>
    <message>
        <location filename="../app/src/models/model_manager_bridge.cpp" line="221"/>
        <source>The GPU</source>
        <translation>Die GPU</translation>
    </message>
    <message>
        <location filename="../app/src/models/model_manager_bridge.cpp" line="223"/>
        <source>%1: %2 of %3 GPU memory free.</source>
        <translation>%1: %2 von %3 GPU-Speicher frei.</translation>
    </message>
    <message>
        <location filename="../app/src/models/model_manager_bridge.cpp" line="224"/>
        <source>%1: %2 GPU memory.</source>
        <translation>%1: %2 GPU-Speicher.</translation>
    </message>
    <message>
        <location filename="../app/src/models/model_manager_bridge.cpp" line="241"/>
        <source>There is no model &quot;%1&quot; in the catalogue.</source>
        <translation>Im Katalog gibt es kein Modell „%1“.</translation>
    </message>
    <message>
        <location filename="../app/src/models/model_manager_bridge.cpp" line="355"/>
        <source>Cannot download %1: %2</source>
        <translation>%1 kann nicht heruntergeladen werden: %2</translation>
    </message>
    <message>
        <location filename="../app/src/models/model_manager_bridge.cpp" line="369"/>
        <source>The download was cancelled.</source>
        <translation>Der Download wurde abgebrochen.</translation>
    </message>
    <message>
        <location filename="../app/src/models/model_manager_bridge.cpp" line="380"/>
        <location filename="../app/src/models/model_manager_bridge.cpp" line="381"/>
        <source>Nothing to import: no file was given.</source>
        <translation>Nichts zu importieren: Es wurde keine Datei angegeben.</translation>
    </message>
    <message>
        <location filename="../app/src/models/model_manager_bridge.cpp" line="412"/>
        <source>%1 is not in the models folder %2; Trit only removes models it keeps.</source>
        <translation>%1 liegt nicht im Modellordner %2; Trit entfernt nur Modelle, die es selbst verwaltet.</translation>
    </message>
    <message>
        <location filename="../app/src/models/model_manager_bridge.cpp" line="421"/>
        <source>%1 is being downloaded; cancel the download instead.</source>
        <translation>%1 wird gerade heruntergeladen; brechen Sie stattdessen den Download ab.</translation>
    </message>
    <message>
        <location filename="../app/src/models/model_manager_bridge.cpp" line="444"/>
        <source>No models folder was given; the models folder stays %1.</source>
        <translation>Es wurde kein Modellordner angegeben; der Modellordner bleibt %1.</translation>
    </message>
    <message>
        <location filename="../app/src/models/model_manager_bridge.cpp" line="446"/>
        <source>Finish or cancel the running downloads before changing the models folder.</source>
        <translation>Schließen Sie laufende Downloads ab oder brechen Sie sie ab, bevor Sie den Modellordner ändern.</translation>
    </message>
    <message>
        <location filename="../app/src/models/model_manager_bridge.cpp" line="448"/>
        <source>Cannot use %1 as the models folder: %2. The models folder stays %3.</source>
        <translation>%1 kann nicht als Modellordner verwendet werden: %2. Der Modellordner bleibt %3.</translation>
    </message>
</context>
<context>
    <name>trit::storage</name>
    <message>
        <location filename="../app/src/storage/app_folders.cpp" line="37"/>
        <location filename="../app/src/storage/app_folders.cpp" line="67"/>
        <location filename="../app/src/storage/app_folders.cpp" line="96"/>
        <source>cannot create %1</source>
        <translation>%1 kann nicht angelegt werden</translation>
    </message>
    <message>
        <location filename="../app/src/storage/app_folders.cpp" line="46"/>
        <source>cannot recreate the link %1</source>
        <translation>die Verknüpfung %1 kann nicht neu angelegt werden</translation>
    </message>
    <message>
        <location filename="../app/src/storage/app_folders.cpp" line="52"/>
        <source>cannot copy %1</source>
        <translation>%1 kann nicht kopiert werden</translation>
    </message>
    <message>
        <location filename="../app/src/storage/app_folders.cpp" line="76"/>
        <location filename="../app/src/storage/app_folders.cpp" line="85"/>
        <source>cannot rename %1 to %2</source>
        <translation>%1 kann nicht in %2 umbenannt werden</translation>
    </message>
    <message>
        <location filename="../app/src/storage/app_folders.cpp" line="107"/>
        <source>cannot move %1 to %2</source>
        <translation>%1 kann nicht nach %2 verschoben werden</translation>
    </message>
    <message>
        <location filename="../app/src/storage/app_folders.cpp" line="166"/>
        <source>Trit moved %1.</source>
        <translation>Trit hat %1 verschoben.</translation>
    </message>
    <message>
        <location filename="../app/src/storage/app_folders.cpp" line="167"/>
        <source> and </source>
        <translation> und </translation>
    </message>
    <message>
        <location filename="../app/src/storage/app_folders.cpp" line="182"/>
        <source>its data (models, conversations) from %1 to %2</source>
        <translation>seine Daten (Modelle, Unterhaltungen) von %1 nach %2</translation>
    </message>
    <message>
        <location filename="../app/src/storage/app_folders.cpp" line="184"/>
        <source>Trit could not move its data from %1 to %2 (%3): it keeps using %1, where nothing was changed.</source>
        <translation>Trit konnte seine Daten nicht von %1 nach %2 verschieben (%3): Es verwendet weiter %1, wo nichts verändert wurde.</translation>
    </message>
    <message>
        <location filename="../app/src/storage/app_folders.cpp" line="193"/>
        <source>its data (models, conversations) to %1</source>
        <translation>seine Daten (Modelle, Unterhaltungen) nach %1</translation>
    </message>
    <message>
        <location filename="../app/src/storage/app_folders.cpp" line="200"/>
        <source>its settings from %1 to %2</source>
        <translation>seine Einstellungen von %1 nach %2</translation>
    </message>
    <message>
        <location filename="../app/src/storage/app_folders.cpp" line="203"/>
        <source>Trit could not move its settings from %1 to %2 (%3): it keeps using %1.</source>
        <translation>Trit konnte seine Einstellungen nicht von %1 nach %2 verschieben (%3): Es verwendet weiter %1.</translation>
    </message>
</context>
<context>
    <name>trit::storage::ConversationListModel</name>
    <message>
        <location filename="../app/src/storage/conversation_list_model.cpp" line="43"/>
        <source>New conversation</source>
        <translation>Neue Unterhaltung</translation>
    </message>
    <message>
        <location filename="../app/src/storage/conversation_list_model.cpp" line="189"/>
        <source>There is no deleted conversation to bring back.</source>
        <translation>Es gibt keine gelöschte Unterhaltung zum Wiederherstellen.</translation>
    </message>
</context>
</TS>
