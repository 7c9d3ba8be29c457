// Sync.h - thin RAII wrappers over pthread mutexes and condition variables, so the runtime
// needs pthreads and libc but not the C++ standard library's compiled part.
#ifndef SPMDC_RUNTIME_SYNC_H
#define SPMDC_RUNTIME_SYNC_H

#include <pthread.h>

namespace spmdc::runtime {

class Mutex {
public:
  Mutex() = default;
  Mutex(const Mutex &) = delete;
  Mutex &operator=(const Mutex &) = delete;
  ~Mutex() { pthread_mutex_destroy(&Native); }
  void lock() { pthread_mutex_lock(&Native); }
  void unlock() { pthread_mutex_unlock(&Native); }
  pthread_mutex_t *native() { return &Native; }

private:
  pthread_mutex_t Native = PTHREAD_MUTEX_INITIALIZER;
};

// Holds a mutex for a scope; unlock()/lock() let a scope drop it around work.
class Lock {
public:
  explicit Lock(Mutex &M) : M(M) { M.lock(); }
  Lock(const Lock &) = delete;
  Lock &operator=(const Lock &) = delete;
  ~Lock() {
    if (Held)
      M.unlock();
  }
  void unlock() {
    M.unlock();
    Held = false;
  }
  void lock() {
    M.lock();
    Held = true;
  }
  Mutex &mutex() { return M; }

private:
  Mutex &M;
  bool Held = true;
};

class CondVar {
public:
  CondVar() = default;
  CondVar(const CondVar &) = delete;
  CondVar &operator=(const CondVar &) = delete;
  ~CondVar() { pthread_cond_destroy(&Native); }
  // The caller holds L; like every condition wait, it may return spuriously.
  void wait(Lock &L) { pthread_cond_wait(&Native, L.mutex().native()); }
  void notifyOne() { pthread_cond_signal(&Native); }
  void notifyAll() { pthread_cond_broadcast(&Native); }

private:
  pthread_cond_t Native = PTHREAD_COND_INITIALIZER;
};

} // namespace spmdc::runtime

#endif // SPMDC_RUNTIME_SYNC_H
