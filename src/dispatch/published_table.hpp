// A fixed-capacity open-addressing table of immutable objects: lock-free lookups from any
// thread, inserts serialized by the owner's mutex. Nothing is ever moved or removed while the
// table lives (no rehash), so a reader never sees a slot change under it; the owner keeps the
// objects alive at least as long as the table.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace sgt {

// Traits: `Key key_of(const T&)` and `std::uint64_t hash_of(const Key&)` found by the caller's
// functors. Capacity is rounded up to a power of two; at most half of it is filled.
template <typename T, typename Key, typename KeyOf, typename Hash>
class PublishedTable {
 public:
  explicit PublishedTable(std::size_t max_entries) : max_entries_(max_entries) {
    capacity_ = 16;
    while (capacity_ < 2 * max_entries) capacity_ *= 2;
    slots_.reset(new std::atomic<const T*>[capacity_]);
    for (std::size_t i = 0; i < capacity_; ++i) slots_[i].store(nullptr, std::memory_order_relaxed);
  }

  const T* find(const Key& key) const noexcept {
    const std::size_t mask = capacity_ - 1;
    for (std::size_t i = Hash{}(key)&mask;; i = (i + 1) & mask) {
      const T* item = slots_[i].load(std::memory_order_acquire);
      if (!item) return nullptr;
      if (KeyOf{}(*item) == key) return item;
    }
  }

  // Under the owner's mutex. False when the table already holds max_entries.
  bool insert(const T* item) noexcept {
    if (size_ >= max_entries_) return false;
    const std::size_t mask = capacity_ - 1;
    for (std::size_t i = Hash{}(KeyOf{}(*item)) & mask;; i = (i + 1) & mask) {
      if (!slots_[i].load(std::memory_order_relaxed)) {
        slots_[i].store(item, std::memory_order_release);
        ++size_;
        return true;
      }
    }
  }

  std::size_t size() const noexcept { return size_; }  // under the owner's mutex
  std::size_t max_entries() const noexcept { return max_entries_; }

 private:
  std::size_t max_entries_ = 0, capacity_ = 0, size_ = 0;
  std::unique_ptr<std::atomic<const T*>[]> slots_;
};

// The finalizer of SplitMix64: a cheap, well-mixed hash of one 64-bit word.
inline std::uint64_t mix64(std::uint64_t x) noexcept {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace sgt
