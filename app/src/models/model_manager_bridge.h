#pragma once
// What QML's ModelManagerDialog talks to: the catalogue joined with the models folder and the running
// downloads, as a list model (roles below) and as `entries` (the same rows as plain maps, the shape the
// dialog binds to). Downloads run on DownloadManager's worker thread; everything arrives here through
// its queued signals. Imports (engine validation plus copy) run on a thread of their own so a 1 GiB
// copy never freezes the window; their result comes back queued as well.
#include <QAbstractListModel>
#include <QHash>
#include <QList>
#include <QPointer>
#include <QSet>
#include <QThread>
#include <QUrl>
#include <QVariantList>
#include <memory>

#include "catalog.h"
#include "download_manager.h"
#include "models_folder.h"

class QQmlEngine;

namespace trit::models {

// One row: a catalogue entry (with its installed file, if any) or an installed model the catalogue does
// not list (imported by the user). Plain data, built by ModelManagerBridge.
struct ModelRow {
  QString id;           // catalogue id, or the file name for an imported model
  bool inCatalog = false;
  CatalogEntry entry;   // valid when inCatalog
  ModelInfo info;       // filled when installed
  bool installed = false;
  bool downloading = false;
  bool paused = false;
  DownloadProgress progress;
  QString message;      // last status line of the download ("Paused at 3 MiB.")
  QString error;        // last failure, in words
};

class ModelListModel : public QAbstractListModel {
  Q_OBJECT
 public:
  enum Role {
    IdRole = Qt::UserRole + 1, NameRole, DescriptionRole, SizeRole, LicenseRole, InstalledRole, PathRole,
    DownloadingRole, PausedRole, BytesReceivedRole, BytesTotalRole, PercentRole, SpeedRole, SecondsLeftRole,
    ErrorRole, MemoryNeededRole, FitsGpuRole, StateRole, QuantizationRole, ContextLengthRole, InCatalogRole,
    // The whole row as the dialog's map (toMap), so a delegate's `required property var modelData` gets it
    // from this model exactly as from a plain array, and only changed rows update.
    ModelDataRole
  };
  Q_ENUM(Role)

  explicit ModelListModel(QObject* parent = nullptr) : QAbstractListModel(parent) {}

  int rowCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QHash<int, QByteArray> roleNames() const override;

  void setRows(QList<ModelRow> rows);        // a full reset (catalogue or folder changed)
  void updateRow(int row, const ModelRow& r); // one row changed (download progress)
  const QList<ModelRow>& rows() const { return rows_; }
  int indexOf(const QString& id) const;
  void setGpuFreeBytes(qint64 bytes);

  // The row as the dialog's plain map: the roles above plus sizeText, progressText, message, fits.
  QVariantMap toMap(int row) const;

 private:
  QVariant fits(const ModelRow& r) const;  // true/false, or an invalid QVariant while unknown
  QList<ModelRow> rows_;
  qint64 gpuFreeBytes_ = -1;
};

class ModelManagerBridge : public QObject {
  Q_OBJECT
  Q_PROPERTY(trit::models::ModelListModel* model READ model CONSTANT)
  Q_PROPERTY(QVariantList entries READ entries NOTIFY entriesChanged)
  Q_PROPERTY(QVariantList installedModels READ installedModels NOTIFY entriesChanged)
  Q_PROPERTY(int installedCount READ installedCount NOTIFY entriesChanged)
  Q_PROPERTY(QString modelsFolder READ modelsFolder NOTIFY modelsFolderChanged)
  Q_PROPERTY(QString catalogError READ catalogError NOTIFY entriesChanged)
  Q_PROPERTY(bool importing READ importing NOTIFY importingChanged)
  Q_PROPERTY(qint64 gpuFreeBytes READ gpuFreeBytes WRITE setGpuFreeBytes NOTIFY entriesChanged)
 public:
  // `catalogLocation` as for catalogLocation() (empty: $TRIT_CATALOG, else built in); `modelsDir` as for
  // ModelsFolder::resolve(). Call load() to read both.
  ModelManagerBridge(QString catalogLocation, QString modelsDir, DownloadOptions options = {},
                     QObject* parent = nullptr);
  ~ModelManagerBridge() override;

  // Reads the catalogue (asynchronously for URLs) and scans the folder; `ready` follows.
  void load();

  ModelListModel* model() { return &model_; }
  QVariantList entries() const;
  QVariantList installedModels() const;  // {id, name, path, fileName, size, quantization, contextLength}
  int installedCount() const;
  QString modelsFolder() const { return folder_.path(); }
  QString catalogError() const { return catalogError_; }
  bool importing() const { return importing_ > 0; }
  qint64 gpuFreeBytes() const { return gpuFreeBytes_; }
  void setGpuFreeBytes(qint64 bytes);

  Q_INVOKABLE bool download(const QString& id);
  Q_INVOKABLE void pause(const QString& id);
  Q_INVOKABLE void resume(const QString& id);
  Q_INVOKABLE void cancel(const QString& id);
  // A local .gguf (file URL or path): validated by the engine, then copied into the folder.
  Q_INVOKABLE void importFile(const QVariant& urlOrPath);
  Q_INVOKABLE void importFiles(const QVariantList& urls);  // the dialog's importRequested(fileUrls)
  // A catalogue id, an imported model's file name, or a path inside the folder. The dialog asks first.
  Q_INVOKABLE bool remove(const QString& idOrPath);
  // Switches to another folder (remembered in the settings) and rescans it.
  Q_INVOKABLE void setModelsDir(const QString& pathOrUrl);
  Q_INVOKABLE void rescan();
  // The installed file of a row (catalogue id or file name), "" when it is not installed.
  Q_INVOKABLE QString pathOf(const QString& id) const;

 signals:
  void ready();                    // the catalogue was read (or failed: see catalogError) and the folder scanned
  void entriesChanged();
  void modelsFolderChanged();
  void importingChanged();
  void errorOccurred(const QString& message);  // a sentence for the user
  void downloadFinished(const QString& id, bool ok, const QString& message);
  void importFinished(bool ok, const QString& pathOrMessage);
  void removed(const QString& path);

 private:
  void rebuild();
  void changed(int row);
  int rowOf(const QString& id) const { return model_.indexOf(id); }
  void onProgress(const QString& id, const DownloadProgress& p);
  void onState(const QString& id, DownloadTask::State s, const QString& message);
  void onFinished(const QString& id, bool ok, const QString& result);
  void fail(const QString& message);

  QString catalogLocation_;
  ModelsFolder folder_;
  Catalog catalog_;
  QString catalogError_;
  ModelListModel model_;
  std::unique_ptr<DownloadManager> downloads_;
  QThread importThread_;
  QObject* importContext_ = nullptr;  // lives on importThread_; imports run there
  int importing_ = 0;
  qint64 gpuFreeBytes_ = -1;
  QHash<QString, ModelRow> live_;  // download state by id, kept across rebuilds
  QSet<QString> cancelling_;       // ids whose cancel() is on its way (their failure is no error)
};

// For main(): the app's bridge (catalogue from $TRIT_CATALOG or the built-in one; folder from
// $TRIT_MODELS_DIR, the setting or the data folder), owned by `engine`, loaded, and exposed to QML as
// the context property "tritModels" (read by Main.qml's model manager). Call before loading Main.qml.
ModelManagerBridge* exposeModelManager(QQmlEngine& engine);

}  // namespace trit::models
