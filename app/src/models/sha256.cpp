#include "sha256.h"

#include <openssl/evp.h>

#include <stdexcept>

namespace trit::models {

Sha256::Sha256() : ctx_(EVP_MD_CTX_new()) {
  if (!ctx_) throw std::bad_alloc();
  reset();
}

Sha256::~Sha256() {
  EVP_MD_CTX_free(ctx_);
}

void Sha256::reset() {
  if (EVP_DigestInit_ex(ctx_, EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("SHA-256 is unavailable in libcrypto");
}

void Sha256::addData(QByteArrayView bytes) {
  if (!bytes.isEmpty()) EVP_DigestUpdate(ctx_, bytes.data(), static_cast<size_t>(bytes.size()));
}

QByteArray Sha256::result() const {
  // Finalise a copy so the running hash can go on (the download keeps streaming after a peek).
  EVP_MD_CTX* copy = EVP_MD_CTX_new();
  QByteArray digest(EVP_MAX_MD_SIZE, '\0');
  unsigned int length = 0;
  if (copy && EVP_MD_CTX_copy_ex(copy, ctx_) == 1)
    EVP_DigestFinal_ex(copy, reinterpret_cast<unsigned char*>(digest.data()), &length);
  EVP_MD_CTX_free(copy);
  digest.resize(length);
  return digest;
}

}  // namespace trit::models
