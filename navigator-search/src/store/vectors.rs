//! How an item's [`ItemVectors`] are kept in the store's `vectors` table.
//!
//! Layout (little-endian): the magic `NVC\x01`, the chunk count (`u32`) and width (`u32`),
//! then per chunk its start and end (`u32` each) and text hash (`u64`), then the chunks'
//! vectors one after the other. A value of bare f32s (`4 × width` bytes, what earlier
//! versions stored) reads as one vector for the whole item.

use crate::chunk::{ChunkVector, ItemVectors};

const MAGIC: &[u8; 4] = b"NVC\x01";
const HEADER: usize = 4 + 4 + 4;
const PER_CHUNK: usize = 4 + 4 + 8;

/// The stored form of `v`.
pub(super) fn encode(v: &ItemVectors) -> Vec<u8> {
    let dims = v.chunks.first().map_or(0, |c| c.vector.len());
    let mut out = Vec::with_capacity(HEADER + v.chunks.len() * (PER_CHUNK + 4 * dims));
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(v.chunks.len() as u32).to_le_bytes());
    out.extend_from_slice(&(dims as u32).to_le_bytes());
    for c in &v.chunks {
        out.extend_from_slice(&c.start.to_le_bytes());
        out.extend_from_slice(&c.end.to_le_bytes());
        out.extend_from_slice(&c.text_hash.to_le_bytes());
    }
    for c in &v.chunks {
        out.extend(c.vector.iter().flat_map(|x| x.to_le_bytes()));
    }
    out
}

/// Reads a stored value; `None` when it is neither form (a torn or foreign value).
pub(super) fn decode(b: &[u8]) -> Option<ItemVectors> {
    if b.len() >= HEADER && &b[..4] == MAGIC {
        let n = u32_at(b, 4)? as usize;
        let dims = u32_at(b, 8)? as usize;
        let vectors_at = HEADER.checked_add(n.checked_mul(PER_CHUNK)?)?;
        if b.len() != vectors_at.checked_add(n.checked_mul(dims)?.checked_mul(4)?)? {
            return None;
        }
        let chunks = (0..n)
            .map(|i| {
                let at = HEADER + i * PER_CHUNK;
                let v = vectors_at + i * dims * 4;
                Some(ChunkVector {
                    start: u32_at(b, at)?,
                    end: u32_at(b, at + 4)?,
                    text_hash: u64::from_le_bytes(b.get(at + 8..at + 16)?.try_into().ok()?),
                    vector: f32s(&b[v..v + dims * 4]),
                })
            })
            .collect::<Option<Vec<_>>>()?;
        return Some(ItemVectors { chunks });
    }
    b.len()
        .is_multiple_of(4)
        .then(|| ItemVectors::whole(f32s(b)))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunked_vectors_round_trip_and_bare_f32s_read_as_one_whole_vector() {
        let v = ItemVectors {
            chunks: vec![
                ChunkVector {
                    start: 0,
                    end: 10,
                    text_hash: 7,
                    vector: vec![1.0, 2.0],
                },
                ChunkVector {
                    start: 8,
                    end: 30,
                    text_hash: u64::MAX,
                    vector: vec![-1.0, 0.5],
                },
            ],
        };
        assert_eq!(decode(&encode(&v)), Some(v));
        let bare: Vec<u8> = [0.25f32, -3.0]
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        assert_eq!(decode(&bare), Some(ItemVectors::whole(vec![0.25, -3.0])));
    }

    #[test]
    fn torn_values_do_not_decode() {
        let v = ItemVectors::whole(vec![1.0; 4]);
        let mut b = encode(&ItemVectors {
            chunks: vec![ChunkVector {
                text_hash: 1,
                ..v.chunks[0].clone()
            }],
        });
        b.pop();
        assert_eq!(decode(&b), None);
        assert_eq!(decode(&[1, 2, 3]), None);
        let mut huge = encode(&v);
        huge[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(decode(&huge), None);
    }
}
