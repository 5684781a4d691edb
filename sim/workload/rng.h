// SPDX-License-Identifier: GPL-2.0
// efqsim workloads: deterministic pseudo-random numbers.  Everything random
// in a run derives from --seed (and a job's randseed), so the same inputs
// give the same IO sequence on every machine.
//
//   Rng          xoshiro256** seeded through splitmix64; below(n) is unbiased.
//   Permutation  a keyed bijection of [0, n): a 4-round Feistel network on
//                the smallest even bit width covering n, with cycle walking.
//                It is fio's "random map" without the map: a random job
//                touches every block once per pass, in O(1) memory.
#pragma once

#include <cstdint>

namespace efqsim::workload {

// One step of splitmix64: advances @state, returns the next output.
inline uint64_t splitmix64(uint64_t &state)
{
	uint64_t z = (state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

// A well-mixed 64-bit value of (@a, @b): seeds for sub-streams.
inline uint64_t mix_seed(uint64_t a, uint64_t b)
{
	uint64_t s = a ^ (b * 0xd1342543de82ef95ULL);

	splitmix64(s);
	return splitmix64(s);
}

class Rng {
public:
	explicit Rng(uint64_t seed = 0) { reseed(seed); }

	void reseed(uint64_t seed)
	{
		uint64_t x = seed;

		for (auto &v : s_)
			v = splitmix64(x);
	}

	uint64_t next()
	{
		const uint64_t result = rotl(s_[1] * 5, 7) * 9;
		const uint64_t t = s_[1] << 17;

		s_[2] ^= s_[0];
		s_[3] ^= s_[1];
		s_[1] ^= s_[2];
		s_[0] ^= s_[3];
		s_[2] ^= t;
		s_[3] = rotl(s_[3], 45);
		return result;
	}

	// Uniform in [0, n); n == 0 gives 0.  Multiply-shift with rejection of
	// the biased low range (no modulo bias).
	uint64_t below(uint64_t n)
	{
		if (n <= 1)
			return 0;
		const uint64_t threshold = (0 - n) % n;
		for (;;) {
			const unsigned __int128 m = static_cast<unsigned __int128>(next()) * n;
			if (static_cast<uint64_t>(m) >= threshold)
				return static_cast<uint64_t>(m >> 64);
		}
	}

private:
	static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

	uint64_t s_[4];
};

class Permutation {
public:
	Permutation() = default;
	Permutation(uint64_t n, uint64_t key) { reset(n, key); }

	void reset(uint64_t n, uint64_t key)
	{
		n_ = n;
		unsigned bits = 0;
		while (bits < 64 && (n > 1 ? (n - 1) >> bits : 0) != 0)
			bits++;
		half_ = bits < 2 ? 1 : (bits + 1) / 2;
		mask_ = (uint64_t{1} << half_) - 1;
		for (auto &k : keys_)
			k = splitmix64(key);
	}

	uint64_t size() const { return n_; }

	// The image of @i (< size()); a bijection of [0, size()).
	uint64_t at(uint64_t i) const
	{
		if (n_ <= 1)
			return 0;
		do {
			i = round_trip(i);
		} while (i >= n_);
		return i;
	}

private:
	uint64_t round_trip(uint64_t x) const
	{
		uint64_t l = x >> half_, r = x & mask_;

		for (const uint64_t k : keys_) {
			uint64_t h = r ^ k;
			const uint64_t f = splitmix64(h) & mask_;
			const uint64_t nl = r;
			r = l ^ f;
			l = nl;
		}
		return (l << half_) | r;
	}

	uint64_t n_ = 0;
	unsigned half_ = 1;
	uint64_t mask_ = 1;
	uint64_t keys_[4] = {};
};

} // namespace efqsim::workload
