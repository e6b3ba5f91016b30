#include "model_manager_bridge.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QQmlContext>
#include <QQmlEngine>
#include <QSet>

#include "catalog_loader.h"
#include "part_state.h"

namespace trit::models {

// ---- ModelListModel ------------------------------------------------------------------------------

int ModelListModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(rows_.size()); }

QHash<int, QByteArray> ModelListModel::roleNames() const {
  return {{IdRole, "id"}, {NameRole, "name"}, {DescriptionRole, "description"}, {SizeRole, "size"},
          {LicenseRole, "license"}, {InstalledRole, "installed"}, {PathRole, "path"},
          {DownloadingRole, "downloading"}, {PausedRole, "paused"}, {BytesReceivedRole, "bytesReceived"},
          {BytesTotalRole, "bytesTotal"}, {PercentRole, "percent"}, {SpeedRole, "speedBytesPerSec"},
          {SecondsLeftRole, "secondsLeft"}, {ErrorRole, "error"}, {MemoryNeededRole, "memoryNeeded"},
          {FitsGpuRole, "fitsGpu"}, {StateRole, "state"}, {QuantizationRole, "quantization"},
          {ContextLengthRole, "contextLength"}, {InCatalogRole, "inCatalog"}, {ModelDataRole, "modelData"}};
}

namespace {

QString stateName(const ModelRow& r) {
  if (r.installed) return QStringLiteral("installed");
  if (r.downloading) return QStringLiteral("downloading");
  if (r.paused) return QStringLiteral("paused");
  if (!r.error.isEmpty()) return QStringLiteral("failed");
  return QStringLiteral("available");
}

QString displayName(const ModelRow& r) {
  if (r.inCatalog) return r.entry.name;
  return r.info.name.isEmpty() ? r.id : r.info.name;
}

qint64 sizeOf(const ModelRow& r) {
  if (r.installed) return r.info.fileSize;
  return r.inCatalog ? r.entry.size : r.info.fileSize;
}

qint64 memoryOf(const ModelRow& r) {
  if (r.installed && r.info.memoryNeeded > 0) return r.info.memoryNeeded;
  return r.inCatalog ? r.entry.memory : r.info.memoryNeeded;
}

// "42.0% · 4.20 MiB of 10.0 MiB · 1.00 MiB/s · 6 s left": what the dialog shows under the bar.
QString progressText(const DownloadProgress& p) {
  QStringList parts;
  if (p.percent >= 0) parts << QStringLiteral("%1%").arg(p.percent, 0, 'f', 1);
  parts << (p.total > 0 ? QStringLiteral("%1 of %2").arg(formatBytes(p.received), formatBytes(p.total))
                        : formatBytes(p.received));
  if (p.bytesPerSecond > 0) parts << QStringLiteral("%1/s").arg(formatBytes(qint64(p.bytesPerSecond)));
  if (p.secondsLeft >= 0) parts << QStringLiteral("%1 left").arg(formatDuration(p.secondsLeft));
  return parts.join(QStringLiteral(" · "));
}

}  // namespace

QVariant ModelListModel::fits(const ModelRow& r) const {
  const qint64 need = memoryOf(r);
  if (gpuFreeBytes_ < 0 || need <= 0) return {};
  return fitsGpu(need, gpuFreeBytes_);
}

QVariant ModelListModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  const ModelRow& r = rows_[index.row()];
  switch (role) {
    case Qt::DisplayRole:
    case NameRole: return displayName(r);
    case IdRole: return r.id;
    case DescriptionRole: return r.inCatalog ? r.entry.description : QString();
    case SizeRole: return sizeOf(r);
    case LicenseRole: return r.inCatalog ? r.entry.license : QString();
    case InstalledRole: return r.installed;
    case PathRole: return r.installed ? r.info.path : QString();
    case DownloadingRole: return r.downloading;
    case PausedRole: return r.paused;
    case BytesReceivedRole: return r.progress.received;
    case BytesTotalRole: return r.progress.total;
    case PercentRole: return r.progress.percent;
    case SpeedRole: return r.progress.bytesPerSecond;
    case SecondsLeftRole: return r.progress.secondsLeft;
    case ErrorRole: return r.error;
    case MemoryNeededRole: return memoryOf(r);
    case FitsGpuRole: return fits(r);
    case StateRole: return stateName(r);
    case QuantizationRole: return r.installed ? r.info.quantization : r.entry.quantization;
    case ContextLengthRole: return r.installed && r.info.contextLength > 0 ? r.info.contextLength : r.entry.contextLength;
    case InCatalogRole: return r.inCatalog;
    case ModelDataRole: return toMap(index.row());
    default: return {};
  }
}

QVariantMap ModelListModel::toMap(int row) const {
  QVariantMap m;
  const QModelIndex i = index(row);
  const auto roles = roleNames();
  for (auto it = roles.begin(); it != roles.end(); ++it)
    if (it.key() != ModelDataRole) m.insert(QString::fromLatin1(it.value()), data(i, it.key()));
  const ModelRow& r = rows_[row];
  const qint64 size = sizeOf(r);
  m.insert(QStringLiteral("sizeText"), size > 0 ? formatBytes(size) : QString());
  m.insert(QStringLiteral("progressText"), r.downloading || r.paused ? progressText(r.progress) : QString());
  m.insert(QStringLiteral("message"), !r.error.isEmpty() ? r.error : r.message);
  m.insert(QStringLiteral("fits"), fits(r));
  return m;
}

void ModelListModel::setRows(QList<ModelRow> rows) {
  beginResetModel();
  rows_ = std::move(rows);
  endResetModel();
}

void ModelListModel::updateRow(int row, const ModelRow& r) {
  if (row < 0 || row >= rows_.size()) return;
  rows_[row] = r;
  emit dataChanged(index(row), index(row));
}

int ModelListModel::indexOf(const QString& id) const {
  for (int i = 0; i < rows_.size(); ++i)
    if (rows_[i].id == id) return i;
  return -1;
}

void ModelListModel::setGpuFreeBytes(qint64 bytes) {
  gpuFreeBytes_ = bytes;
  if (!rows_.isEmpty()) emit dataChanged(index(0), index(int(rows_.size()) - 1), {FitsGpuRole, ModelDataRole});
}

// ---- ModelManagerBridge --------------------------------------------------------------------------

namespace {

QString localPath(const QVariant& urlOrPath) {
  const QUrl url = urlOrPath.userType() == QMetaType::QUrl ? urlOrPath.toUrl() : QUrl(urlOrPath.toString());
  if (url.isLocalFile()) return url.toLocalFile();
  return urlOrPath.toString();
}

}  // namespace

ModelManagerBridge::ModelManagerBridge(QString catalogLocation, QString modelsDir, DownloadOptions options,
                                       QObject* parent)
    : QObject(parent), catalogLocation_(std::move(catalogLocation)), folder_(ModelsFolder::resolve(modelsDir)) {
  // A downloaded file is accepted only if the engine can open it, exactly like an import.
  if (!options.validate) options.validate = [](const QString& path) { return inspectModel(path).error; };
  downloads_ = std::make_unique<DownloadManager>(std::move(options));
  connect(downloads_.get(), &DownloadManager::progress, this, &ModelManagerBridge::onProgress);
  connect(downloads_.get(), &DownloadManager::stateChanged, this, &ModelManagerBridge::onState);
  connect(downloads_.get(), &DownloadManager::finished, this,
          [this](const QString& id, bool ok, const QString& result, const QString&) { onFinished(id, ok, result); });
  importThread_.setObjectName(QStringLiteral("trit-model-import"));
  importContext_ = new QObject;
  importContext_->moveToThread(&importThread_);
  connect(&importThread_, &QThread::finished, importContext_, &QObject::deleteLater);
  importThread_.start();
}

ModelManagerBridge::~ModelManagerBridge() {
  downloads_.reset();  // pauses running downloads; their .part files stay for the next start
  importThread_.quit();
  importThread_.wait();
}

void ModelManagerBridge::load() {
  QDir().mkpath(folder_.path());
  rebuild();  // installed models are known at once, before a remote catalogue arrives
  fetchCatalog(catalogLocation(catalogLocation_), this, [this](std::optional<Catalog> catalog, QString error) {
    if (catalog) {
      catalog_ = std::move(*catalog);
      catalogError_.clear();
    } else {
      catalogError_ = error;
      emit errorOccurred(error);
    }
    rebuild();
    emit ready();
  });
}

void ModelManagerBridge::rescan() { rebuild(); }

void ModelManagerBridge::rebuild() {
  const QList<ModelInfo> found = folder_.scan();
  QHash<QString, ModelInfo> byFile;
  for (const ModelInfo& info : found) byFile.insert(info.fileName, info);

  QList<ModelRow> rows;
  QSet<QString> catalogFiles;
  for (const CatalogEntry& e : catalog_.models) {
    ModelRow r = live_.value(e.id);
    r.id = e.id;
    r.inCatalog = true;
    r.entry = e;
    catalogFiles.insert(e.fileName);
    const auto it = byFile.constFind(e.fileName);
    r.installed = it != byFile.cend() && it->ok() && !r.downloading;
    r.info = it != byFile.cend() ? *it : ModelInfo{};
    if (it != byFile.cend() && !it->ok() && !r.downloading) r.error = it->error;
    // A .part left by an earlier run: shown as paused, resumed by resume().
    if (!r.installed && !r.downloading && !downloads_->isRunning(e.id)) {
      if (const qint64 part = folder_.partialBytes(e); part > 0) {
        r.paused = true;
        r.progress.received = part;
        r.progress.total = e.size > 0 ? e.size : -1;
        r.progress.percent = e.size > 0 ? 100.0 * double(part) / double(e.size) : -1;
      } else {
        r.paused = false;
      }
    }
    rows << r;
  }
  for (const ModelInfo& info : found) {
    if (catalogFiles.contains(info.fileName)) continue;
    ModelRow r;
    r.id = info.fileName;
    r.info = info;
    r.installed = info.ok();
    r.error = info.error;
    rows << r;
  }
  model_.setRows(std::move(rows));
  emit entriesChanged();
}

void ModelManagerBridge::changed(int row) {
  if (row < 0) return;
  emit entriesChanged();
}

QVariantList ModelManagerBridge::entries() const {
  QVariantList out;
  for (int i = 0; i < model_.rowCount(); ++i) out << model_.toMap(i);
  return out;
}

QVariantList ModelManagerBridge::installedModels() const {
  QVariantList out;
  for (const ModelRow& r : model_.rows()) {
    if (!r.installed) continue;
    out << QVariantMap{{QStringLiteral("id"), r.id},
                       {QStringLiteral("name"), displayName(r)},
                       {QStringLiteral("path"), r.info.path},
                       {QStringLiteral("fileName"), r.info.fileName},
                       {QStringLiteral("size"), r.info.fileSize},
                       {QStringLiteral("quantization"), r.info.quantization},
                       {QStringLiteral("contextLength"), r.info.contextLength}};
  }
  return out;
}

int ModelManagerBridge::installedCount() const {
  int n = 0;
  for (const ModelRow& r : model_.rows()) n += r.installed ? 1 : 0;
  return n;
}

void ModelManagerBridge::setGpuFreeBytes(qint64 bytes) {
  if (bytes == gpuFreeBytes_) return;
  gpuFreeBytes_ = bytes;
  model_.setGpuFreeBytes(bytes);
  emit entriesChanged();
}

QString ModelManagerBridge::pathOf(const QString& id) const {
  const int row = rowOf(id);
  return row >= 0 && model_.rows()[row].installed ? model_.rows()[row].info.path : QString();
}

void ModelManagerBridge::fail(const QString& message) { emit errorOccurred(message); }

bool ModelManagerBridge::download(const QString& id) {
  const CatalogEntry* e = catalog_.find(id);
  if (!e) {
    fail(tr("There is no model \"%1\" in the catalogue.").arg(id));
    return false;
  }
  QString error;
  const DownloadRequest request{e->id, e->url, e->sha256, e->size, folder_.path(), e->fileName};
  if (!downloads_->start(request, &error)) {
    fail(error);
    return false;
  }
  ModelRow& live = live_[id];
  live.downloading = true;
  live.paused = false;
  live.error.clear();
  live.message.clear();
  live.progress.received = folder_.partialBytes(*e);
  live.progress.total = e->size > 0 ? e->size : -1;
  rebuild();
  return true;
}

void ModelManagerBridge::pause(const QString& id) {
  if (downloads_->isRunning(id)) downloads_->pause(id);
}

void ModelManagerBridge::resume(const QString& id) {
  if (downloads_->isRunning(id)) {
    downloads_->resume(id);
    ModelRow& live = live_[id];
    live.paused = false;
    live.downloading = true;
    const int row = rowOf(id);
    if (row >= 0) {
      ModelRow r = model_.rows()[row];
      r.paused = false;
      r.downloading = true;
      model_.updateRow(row, r);
      changed(row);
    }
  } else {
    download(id);  // a .part from an earlier run: start() continues it with a Range request
  }
}

void ModelManagerBridge::cancel(const QString& id) {
  if (downloads_->isRunning(id)) {
    cancelling_.insert(id);
    downloads_->cancel(id);
    return;
  }
  // Nothing running: a .part left by an earlier run is removed here.
  if (const CatalogEntry* e = catalog_.find(id)) {
    const QString final = folder_.filePath(*e);
    QFile::remove(partPath(final));
    QFile::remove(partStatePath(final));
  }
  live_.remove(id);
  rebuild();
}

void ModelManagerBridge::onProgress(const QString& id, const DownloadProgress& p) {
  ModelRow& live = live_[id];
  live.progress = p;
  const int row = rowOf(id);
  if (row < 0) return;
  ModelRow r = model_.rows()[row];
  r.progress = p;
  model_.updateRow(row, r);
  changed(row);
}

void ModelManagerBridge::onState(const QString& id, DownloadTask::State s, const QString& message) {
  ModelRow& live = live_[id];
  switch (s) {
    case DownloadTask::State::Paused:
      live.paused = true;
      live.downloading = false;
      break;
    case DownloadTask::State::Connecting:
    case DownloadTask::State::Downloading:
    case DownloadTask::State::Stalled:
    case DownloadTask::State::Waiting:
    case DownloadTask::State::Verifying:
      live.paused = false;
      live.downloading = true;
      break;
    default:  // Idle, Done, Failed, Cancelled: finished() follows and decides
      break;
  }
  live.message = message;
  const int row = rowOf(id);
  if (row < 0) return;
  ModelRow r = model_.rows()[row];
  r.paused = live.paused;
  r.downloading = live.downloading;
  r.message = message;
  model_.updateRow(row, r);
  changed(row);
}

void ModelManagerBridge::onFinished(const QString& id, bool ok, const QString& result) {
  const bool cancelled = cancelling_.remove(id);
  if (ok || cancelled) {
    live_.remove(id);
  } else {
    ModelRow& live = live_[id];
    live.downloading = false;
    live.paused = false;
    live.error = result;
    const CatalogEntry* e = catalog_.find(id);
    fail(tr("Cannot download %1: %2").arg(e ? e->name : id, result));
  }
  rebuild();
  emit downloadFinished(id, ok, ok ? result : (cancelled ? tr("The download was cancelled.") : result));
}

void ModelManagerBridge::importFiles(const QVariantList& urls) {
  for (const QVariant& u : urls) importFile(u);
}

void ModelManagerBridge::importFile(const QVariant& urlOrPath) {
  const QString source = localPath(urlOrPath);
  if (source.isEmpty()) {
    fail(tr("Nothing to import: no file was given."));
    emit importFinished(false, tr("Nothing to import: no file was given."));
    return;
  }
  ++importing_;
  emit importingChanged();
  QPointer<ModelManagerBridge> self(this);
  const ModelsFolder folder = folder_;
  // Validation opens the model with the engine and the copy may be large: both off the GUI thread.
  QMetaObject::invokeMethod(importContext_, [self, folder, source] {
    QString error;
    const std::optional<ModelInfo> info = folder.importFile(source, &error);
    const QString result = info ? info->path : error;
    const bool ok = info.has_value();
    if (self)
      QMetaObject::invokeMethod(self.data(), [self, ok, result] {
        if (!self) return;
        --self->importing_;
        emit self->importingChanged();
        self->rebuild();
        if (!ok) emit self->errorOccurred(result);
        emit self->importFinished(ok, result);
      }, Qt::QueuedConnection);
  }, Qt::QueuedConnection);
}

bool ModelManagerBridge::remove(const QString& idOrPath) {
  QString fileName;
  if (const CatalogEntry* e = catalog_.find(idOrPath)) {
    fileName = e->fileName;
  } else if (idOrPath.contains(QLatin1Char('/')) || QUrl(idOrPath).isLocalFile()) {
    const QFileInfo fi(localPath(idOrPath));
    if (QDir(fi.absolutePath()) != QDir(folder_.path())) {
      fail(tr("%1 is not in the models folder %2; Trit only removes models it keeps.").arg(fi.filePath(), folder_.path()));
      return false;
    }
    fileName = fi.fileName();
  } else {
    fileName = idOrPath;
  }
  const int row = rowOf(idOrPath) >= 0 ? rowOf(idOrPath) : rowOf(fileName);
  if (row >= 0 && (model_.rows()[row].downloading || downloads_->isRunning(model_.rows()[row].id))) {
    fail(tr("%1 is being downloaded; cancel the download instead.").arg(displayName(model_.rows()[row])));
    return false;
  }
  const QString path = QDir(folder_.path()).filePath(fileName);
  QString error;
  // The dialog asked the user before calling: this is the confirmed removal.
  if (!folder_.remove(fileName, true, &error)) {
    fail(error);
    return false;
  }
  rebuild();
  emit removed(path);
  return true;
}

void ModelManagerBridge::setModelsDir(const QString& pathOrUrl) {
  const QString path = QDir::cleanPath(localPath(pathOrUrl));
  if (path.isEmpty()) {
    fail(tr("No models folder was given."));
    return;
  }
  if (!downloads_->running().isEmpty()) {
    fail(tr("Finish or cancel the running downloads before changing the models folder."));
    return;
  }
  if (!QDir().mkpath(path)) {
    fail(tr("Cannot use %1 as the models folder: it cannot be created.").arg(path));
    return;
  }
  ModelsFolder::saveSetting(path);
  folder_ = ModelsFolder(path);
  live_.clear();
  rebuild();
  emit modelsFolderChanged();
}

ModelManagerBridge* exposeModelManager(QQmlEngine& engine) {
  auto* bridge = new ModelManagerBridge(QString(), QString(), DownloadOptions{}, &engine);
  engine.rootContext()->setContextProperty(QStringLiteral("tritModels"), bridge);
  bridge->load();
  return bridge;
}

}  // namespace trit::models
