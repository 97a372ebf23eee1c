package plan

import (
	"encoding/binary"
	"encoding/json"
	"hash/fnv"

	corev1 "k8s.io/api/core/v1"
)

// hashAlphabet has no vowels, nor 0, 1 and 3 that read as o, i/l and e, so a
// hash never spells a word.
const hashAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// TemplateHash is the rollouts-pod-template-hash of a pod template: a stable
// short alphanumeric hash (FNV-32a) of the template's canonical JSON encoding
// plus collisionCount when non-nil, encoded with the consonant-and-digit
// alphabet "bcdfghjklmnpqrstvwxz2456789" like Kubernetes' pod-template-hash
// values (no vowels, so no words). The result is 1 to 7 characters long.
//
// Labels, annotations and every other map hash the same in any order, since
// encoding/json sorts map keys. A nil collisionCount and a collisionCount of
// 0 give different hashes; each higher count gives a new one, which is how a
// caller steps past a ReplicaSet name that is taken by another template.
//
// The template must not already carry the rollouts-pod-template-hash label
// (v1alpha1.DefaultRolloutUniqueLabelKey): the label's value is this hash, so
// callers hash a copy with that label removed. The hash changes if a new
// k8s.io/api adds a field that encodes even when empty, so it identifies a
// template within one Ramp version; matching a ReplicaSet to a Rollout across
// upgrades should also compare the templates themselves.
func TemplateHash(tmpl *corev1.PodTemplateSpec, collisionCount *int32) string {
	h := fnv.New32a()
	// Writes to an FNV hash never fail, and a PodTemplateSpec holds only
	// plain data (strings, numbers, maps, slices, quantities, times), which
	// always encodes; so the error is always nil.
	_ = json.NewEncoder(h).Encode(tmpl)
	if collisionCount != nil {
		var b [4]byte
		binary.LittleEndian.PutUint32(b[:], uint32(*collisionCount))
		_, _ = h.Write(b[:])
	}
	return encodeHash(h.Sum32())
}

// encodeHash writes v in base 27 over hashAlphabet, most significant digit
// first; 27^7 > 2^32, so it takes at most 7 characters.
func encodeHash(v uint32) string {
	const base = uint32(len(hashAlphabet))
	var buf [7]byte
	i := len(buf)
	for {
		i--
		buf[i] = hashAlphabet[v%base]
		v /= base
		if v == 0 {
			return string(buf[i:])
		}
	}
}
