//! Tests of the vector index: batches, quantisation, exact re-ranking, files, damage, and
//! the graph backlog.

use super::*;

/// A deterministic unit vector for `seed`.
fn unit(seed: u64, dims: usize) -> Vec<f32> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let v: Vec<f32> = (0..dims)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % 2000) as f32 / 1000.0 - 1.0
        })
        .collect();
    let n = v.iter().map(|a| a * a).sum::<f32>().sqrt();
    v.into_iter().map(|a| a / n).collect()
}

/// An index of `n` random `dims`-d vectors keyed by position, all in the graph (the walk, not
/// the backlog's exact scan, is what a search over it measures).
fn graph_of(n: u64, dims: usize) -> (tempfile::TempDir, VectorIndex, Vec<Vec<f32>>) {
    graph_with_degree(n, dims, crate::config::DEFAULT_GRAPH_DEGREE)
}

/// [`graph_of`] with `degree` neighbours per node.
fn graph_with_degree(
    n: u64,
    dims: usize,
    degree: usize,
) -> (tempfile::TempDir, VectorIndex, Vec<Vec<f32>>) {
    let dir = tempfile::tempdir().unwrap();
    let (index, _) =
        VectorIndex::open_with_degree(&dir.path().join("v.usearch"), dims, degree).unwrap();
    let vectors: Vec<Vec<f32>> = (0..n).map(|i| unit(i, dims)).collect();
    index.apply(&keyed(&vectors)).unwrap();
    index.finish_graph().unwrap();
    (dir, index, vectors)
}

/// How many of the exact 10 nearest vectors (keys are positions) of 20 random queries,
/// seeded from `seed`, `index` finds.
fn found_in_top_10(index: &VectorIndex, vectors: &[Vec<f32>], seed: u64) -> usize {
    let keyed: Vec<(u64, Vec<f32>)> = vectors
        .iter()
        .enumerate()
        .map(|(i, v)| (i as u64, v.clone()))
        .collect();
    (0..20u64)
        .map(|q| {
            let query = unit(seed + q, vectors[0].len());
            let hits = index.search(&query, 10, |_| true).unwrap();
            exact_top(&keyed, &query, 10)
                .iter()
                .filter(|i| hits.iter().any(|(k, _)| k == *i))
                .count()
        })
        .sum()
}

/// Every vector as an insert under its position as key.
fn keyed(vectors: &[Vec<f32>]) -> Vec<(u64, Option<&[f32]>)> {
    vectors
        .iter()
        .enumerate()
        .map(|(i, v)| (i as u64, Some(v.as_slice())))
        .collect()
}

#[test]
fn a_large_batch_applies_like_its_changes_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let (index, opened) = VectorIndex::open(&dir.path().join("v.usearch"), 16).unwrap();
    assert_eq!(opened, Opened::New);
    let vectors: Vec<Vec<f32>> = (0..600).map(|i| unit(i, 16)).collect();
    let replaced = unit(10_000, 16);
    let mut changes = keyed(&vectors);
    // Key 5 is written twice (the second wins), key 7 is added then deleted.
    changes.push((5, Some(replaced.as_slice())));
    changes.push((7, None));
    index.apply(&changes).unwrap();
    assert_eq!(index.len().unwrap(), 599);
    let sims = index.similarities(&replaced, &[5, 7]).unwrap();
    assert_eq!(sims.len(), 1, "key 7 was deleted");
    assert!(
        (sims[0].1 - 1.0).abs() < 1e-5,
        "key 5 holds its last vector"
    );
    let top = index.search(&vectors[42], 1, |_| true).unwrap();
    assert_eq!(top[0].0, 42);
}

#[test]
fn codes_use_the_whole_range_and_degenerate_vectors_give_zeros() {
    assert_eq!(quantize(&[0.5, -0.25, 0.0, 0.1]), vec![127, -64, 0, 25]);
    assert_eq!(quantize(&[0.0; 3]), vec![0; 3]);
    assert_eq!(quantize(&[f32::INFINITY, 1.0]), vec![0; 2]);
    assert_eq!(quantize(&[f32::NAN, 1.0]), vec![0, 127]);
}

#[test]
fn search_reranks_by_exact_cosine_and_agrees_with_an_exact_scan() {
    let dims = 48;
    let (_dir, index, vectors) = graph_of(2_000, dims);
    assert_eq!(index.backlog_len().unwrap(), 0);
    for q in 0..20u64 {
        let query = unit(50_000 + q, dims);
        let hits = index.search(&query, 10, |_| true).unwrap();
        assert_eq!(hits.len(), 10);
        for (key, sim) in &hits {
            let exact = navigator_core::cosine(&query, &vectors[*key as usize]);
            assert!((sim - exact).abs() < 1e-5, "{sim} vs {exact}");
        }
        assert!(hits.windows(2).all(|w| w[0].1 >= w[1].1), "best first");
    }
    let found = found_in_top_10(&index, &vectors, 50_000);
    assert!(found >= 190, "recall@10 {found}/200");
    let evens = index.search(&vectors[7], 5, |k| k % 2 == 0).unwrap();
    assert!(evens.iter().all(|(k, _)| k % 2 == 0));
}

#[test]
fn the_search_beam_trades_time_for_recall_up_to_an_exact_search() {
    // Random directions in 256 dimensions in a sparse graph (degree 8): the hard case for a
    // graph walk (at the default degree a beam of one already finds 196 of 200).
    let (_dir, index, vectors) = graph_with_degree(4_000, 256, 8);
    assert_eq!(index.search_beam(), EXPANSION_SEARCH);
    assert_eq!(
        crate::EngineConfig::default().search_beam,
        EXPANSION_SEARCH,
        "the engine's default beam is the index's"
    );
    let recall = |index: &VectorIndex| found_in_top_10(index, &vectors, 90_000);
    let default = recall(&index);
    index.set_search_beam(0);
    assert_eq!(index.search_beam(), 1, "at least one candidate");
    // A beam below the default narrows the walk (the graph keeps no wider beam of its own).
    let narrow = recall(&index);
    // A beam as wide as the index re-ranks every vector the walk reaches: exact but for a
    // node the parallel build left without a way in (seen: one in 200 at 3,000 × 64-d).
    index.set_search_beam(vectors.len());
    let wide = recall(&index);
    assert!(wide >= 198, "a beam over every vector: {wide}/200");
    // Seen over four builds: 21–30 of 200 at beam 1, 184–197 at the default beam (the
    // parallel build is not deterministic, so the default may come within a few of exact).
    assert!(default <= wide, "default {default}, wide {wide}");
    assert!(narrow + 5 <= default, "narrow {narrow}, default {default}");
}

/// A saved index of 300 16-d vectors (key 3 deleted) at `path`.
fn saved(path: &Path, dims: usize) -> Vec<Vec<f32>> {
    let vectors: Vec<Vec<f32>> = (0..300).map(|i| unit(i, dims)).collect();
    let (index, opened) = VectorIndex::open(path, dims).unwrap();
    assert_eq!(opened, Opened::New);
    index.apply(&keyed(&vectors)).unwrap();
    index.apply(&[(3, None)]).unwrap();
    index.finish_graph().unwrap();
    index.save().unwrap();
    vectors
}

/// Opens `path`, expecting it to start empty for a reason containing `why`.
fn assert_damaged(path: &Path, dims: usize, why: &str) {
    let (index, opened) = VectorIndex::open(path, dims).unwrap();
    match &opened {
        Opened::Damaged(reason) => assert!(reason.contains(why), "{reason:?} lacks {why:?}"),
        other => panic!("opened as {other:?}, expected damaged ({why})"),
    }
    assert_eq!(index.len().unwrap(), 0);
    // An emptied index takes writes and saves again.
    index.apply(&[(1, Some(unit(1, dims).as_slice()))]).unwrap();
    index.save().unwrap();
}

#[test]
fn a_saved_index_reopens_and_a_missing_or_foreign_part_starts_empty() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v.usearch");
    let dims = 16;
    let vectors = saved(&path, dims);
    let (index, opened) = VectorIndex::open(&path, dims).unwrap();
    assert_eq!(opened, Opened::Loaded);
    assert_eq!(index.len().unwrap(), 299);
    assert_eq!(index.search(&vectors[9], 1, |_| true).unwrap()[0].0, 9);
    assert!(index.similarities(&vectors[3], &[3]).unwrap().is_empty());
    drop(index);

    // Without its exact vectors the graph is not used.
    std::fs::remove_file(exact_path(&path)).unwrap();
    assert_damaged(&path, dims, "v.f32: cannot be read");

    // A graph of f32 vectors (an earlier form) is rebuilt, not read.
    let old = Index::new(&IndexOptions {
        dimensions: dims,
        metric: MetricKind::Cos,
        quantization: ScalarKind::F32,
        ..IndexOptions::default()
    })
    .unwrap();
    old.reserve(10).unwrap();
    old.add(1, &vectors[1]).unwrap();
    old.save(&path.to_string_lossy()).unwrap();
    let mut table = ExactVectors::new(dims);
    table.put(1, &vectors[1]);
    let bytes = std::fs::read(&path).unwrap();
    table
        .save(&exact_path(&path), GraphSum::of(&bytes))
        .unwrap();
    assert_damaged(&path, dims, "another form");
}

#[test]
fn an_opened_index_is_a_view_until_its_first_change() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v.usearch");
    let dims = 16;
    let vectors = saved(&path, dims);
    let (index, _) = VectorIndex::open(&path, dims).unwrap();
    assert_eq!(index.read().unwrap().viewed, cfg!(unix));
    assert_eq!(index.search(&vectors[9], 1, |_| true).unwrap()[0].0, 9);
    // The first change copies the graph into memory and goes on from there.
    let fresh = unit(77_777, dims);
    index
        .apply(&[(1_000, Some(fresh.as_slice())), (9, None)])
        .unwrap();
    assert!(!index.read().unwrap().viewed);
    assert_eq!(index.len().unwrap(), 299);
    assert_eq!(index.search(&fresh, 1, |_| true).unwrap()[0].0, 1_000);
    assert_ne!(index.search(&vectors[9], 1, |_| true).unwrap()[0].0, 9);
    assert_eq!(index.search(&vectors[20], 1, |_| true).unwrap()[0].0, 20);
    index.save().unwrap();
    drop(index);
    let (back, opened) = VectorIndex::open(&path, dims).unwrap();
    assert_eq!(opened, Opened::Loaded);
    assert_eq!(back.len().unwrap(), 299);
    assert_eq!(back.search(&fresh, 1, |_| true).unwrap()[0].0, 1_000);
}

/// Defect 3 of the reliability audit: flipping bytes in the middle of the graph file made
/// usearch crash the process (SIGSEGV) on open. The graph is now checked against the sum
/// its table records before usearch reads it.
#[test]
fn defect_3_a_graph_with_flipped_body_bytes_is_rebuilt_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v.usearch");
    let dims = 16;
    type Damage = fn(&mut Vec<u8>);
    let damages: [(&str, Damage); 3] = [
        ("flipped", |b| {
            let len = b.len();
            for p in [len / 3, len / 2, len / 2 + 1, len - 9] {
                b[p] ^= 0x5a;
            }
        }),
        ("truncated", |b| b.truncate(b.len() / 2)),
        ("emptied", |b| b.clear()),
    ];
    for (what, damage) in damages {
        let _ = std::fs::remove_file(&path);
        let _ = std::fs::remove_file(exact_path(&path));
        saved(&path, dims);
        let mut bytes = std::fs::read(&path).unwrap();
        damage(&mut bytes);
        std::fs::write(&path, &bytes).unwrap();
        eprintln!("graph {what}");
        assert_damaged(&path, dims, "do not match");
    }
}

#[test]
fn a_vector_of_the_wrong_width_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (index, _) = VectorIndex::open(&dir.path().join("v.usearch"), 16).unwrap();
    let good = unit(1, 16);
    let bad = unit(2, 8);
    let err = index
        .apply(&[(1, Some(good.as_slice())), (2, Some(bad.as_slice()))])
        .unwrap_err();
    assert!(err.to_string().contains("8-d vector"), "{err}");
    assert_eq!(index.len().unwrap(), 0);
}

/// The exact top `k` of `query` among `vectors` (by position), best first.
fn exact_top(vectors: &[(u64, Vec<f32>)], query: &[f32], k: usize) -> Vec<u64> {
    let mut scan: Vec<(u64, f32)> = vectors
        .iter()
        .map(|(key, v)| (*key, navigator_core::cosine(query, v)))
        .collect();
    scan.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    scan.into_iter().take(k).map(|(key, _)| key).collect()
}

#[test]
fn a_large_batch_is_searchable_before_the_graph_takes_it() {
    let dir = tempfile::tempdir().unwrap();
    let dims = 32;
    let (index, _) = VectorIndex::open(&dir.path().join("v.usearch"), dims).unwrap();
    // A small batch goes into the graph at once, a large one into the backlog.
    let small: Vec<(u64, Vec<f32>)> = (0..50).map(|i| (i, unit(i, dims))).collect();
    let changes: Vec<(u64, Option<&[f32]>)> = small
        .iter()
        .map(|(k, v)| (*k, Some(v.as_slice())))
        .collect();
    index.apply(&changes).unwrap();
    assert_eq!(index.backlog_len().unwrap(), 0);
    let large: Vec<(u64, Vec<f32>)> = (50..1_050).map(|i| (i, unit(i, dims))).collect();
    let changes: Vec<(u64, Option<&[f32]>)> = large
        .iter()
        .map(|(k, v)| (*k, Some(v.as_slice())))
        .collect();
    index.apply(&changes).unwrap();
    assert_eq!(index.backlog_len().unwrap(), 1_000);
    assert_eq!(index.len().unwrap(), 1_050);
    let all: Vec<(u64, Vec<f32>)> = small.into_iter().chain(large).collect();
    // Graph walk and backlog scan together: the backlog part is exact.
    for q in 0..10u64 {
        let query = unit(90_000 + q, dims);
        let hits = index.search(&query, 5, |_| true).unwrap();
        let keys: Vec<u64> = hits.iter().map(|h| h.0).collect();
        let expected: Vec<u64> = exact_top(&all, &query, 5);
        assert_eq!(keys, expected, "query {q}");
    }
    // A filter applies to the scanned backlog too; a removed backlog key is gone.
    let odd = index.search(&all[600].1, 10, |k| k % 2 == 1).unwrap();
    assert!(odd.iter().all(|(k, _)| k % 2 == 1), "{odd:?}");
    index.apply(&[(600, None)]).unwrap();
    assert_eq!(index.backlog_len().unwrap(), 999);
    assert_ne!(index.search(&all[600].1, 1, |_| true).unwrap()[0].0, 600);
    index.finish_graph().unwrap();
    assert_eq!(index.backlog_len().unwrap(), 0);
    assert_eq!(index.len().unwrap(), 1_049);
    assert_eq!(index.search(&all[700].1, 1, |_| true).unwrap()[0].0, 700);
}

#[test]
fn a_saved_backlog_comes_back_on_open_and_is_built_then() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v.usearch");
    let dims = 16;
    let vectors: Vec<Vec<f32>> = (0..900).map(|i| unit(i, dims)).collect();
    let (index, _) = VectorIndex::open(&path, dims).unwrap();
    index.apply(&keyed(&vectors[..300])).unwrap();
    index.finish_graph().unwrap();
    // Keys the build found unreachable (rare) come back as backlog too.
    let strays = index.read().unwrap().stray.len();
    // Saved with 300 keys in the graph and 600 waiting for it.
    let rest: Vec<(u64, Option<&[f32]>)> = keyed(&vectors)[300..].to_vec();
    index.apply(&rest).unwrap();
    assert_eq!(index.backlog_len().unwrap(), 600);
    index.save().unwrap();
    drop(index);
    let (index, opened) = VectorIndex::open(&path, dims).unwrap();
    assert_eq!(opened, Opened::Loaded);
    assert_eq!(index.len().unwrap(), 900);
    assert_eq!(index.backlog_len().unwrap(), 600 + strays);
    assert_eq!(index.search(&vectors[750], 1, |_| true).unwrap()[0].0, 750);
    assert!(!index.graph_unsaved());
    index.finish_graph().unwrap();
    assert!(index.graph_unsaved(), "the graph grew since the save");
    let strays = index.read().unwrap().stray.len();
    index.save().unwrap();
    drop(index);
    let (index, _) = VectorIndex::open(&path, dims).unwrap();
    assert_eq!(index.backlog_len().unwrap(), strays);
    assert_eq!(index.search(&vectors[750], 1, |_| true).unwrap()[0].0, 750);
}

#[test]
fn the_background_builder_empties_the_backlog_once_writes_pause() {
    let dir = tempfile::tempdir().unwrap();
    let dims = 16;
    let (index, _) = VectorIndex::open(&dir.path().join("v.usearch"), dims).unwrap();
    let index = std::sync::Arc::new(index);
    index.start_building();
    let vectors: Vec<Vec<f32>> = (0..2_000).map(|i| unit(i, dims)).collect();
    index.apply(&keyed(&vectors)).unwrap();
    // Bounded wait for the builder (it starts after a pause in writes).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while index.backlog_len().unwrap() > 0 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(index.backlog_len().unwrap(), 0, "the builder did not run");
    assert!(index.graph_unsaved());
    assert_eq!(
        index.search(&vectors[1_234], 1, |_| true).unwrap()[0].0,
        1_234
    );
    // Dropping the index ends the builder: it holds the index only during a step.
    let weak = std::sync::Arc::downgrade(&index);
    drop(index);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while weak.upgrade().is_some() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert!(weak.upgrade().is_none(), "the builder kept the index alive");
}

#[test]
fn a_search_for_its_own_code_finds_every_key_of_a_sound_graph_and_flags_the_others() {
    let (_dir, index, vectors) = graph_of(400, 32);
    let inner = index.read().unwrap();
    // Each key is in the graph or a stray (searched for when built and not found).
    assert!((0..400).all(|k| inner.graph.contains(k) != inner.stray.contains(&k)));
    let own: Vec<(u64, Vec<i8>)> = vectors
        .iter()
        .enumerate()
        .map(|(i, v)| (i as u64, quantize(v)))
        .filter(|(k, _)| inner.graph.contains(*k))
        .collect();
    assert!(own.len() >= 390, "{} strays", 400 - own.len());
    assert_eq!(reach::unreachable(&inner.graph, &own), Vec::<u64>::new());
    // A key searched for by another vector's code is not found: reported as unreachable,
    // with the keys found left out, on one thread or several.
    let mut swapped = own.clone();
    swapped[7].1 = quantize(&unit(10_000, 32));
    swapped[300].1 = quantize(&unit(10_001, 32));
    let (a, b) = (swapped[7].0, swapped[300].0);
    assert_eq!(reach::unreachable(&inner.graph, &swapped), [a, b]);
    assert_eq!(reach::unreachable(&inner.graph, &swapped[5..9]), [a]);
}

#[test]
fn a_stranded_key_is_scanned_exactly_until_the_next_open_builds_it_again() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v.usearch");
    let dims = 16;
    let vectors: Vec<Vec<f32>> = (0..300).map(|i| unit(i, dims)).collect();
    let (index, _) = VectorIndex::open(&path, dims).unwrap();
    index.apply(&keyed(&vectors)).unwrap();
    index.finish_graph().unwrap();
    // Keys the build itself found unreachable (rare) are strays already.
    let before = index.read().unwrap().stray.len();
    // As if no search reached keys 42 and 43: they leave the graph, not the index.
    index.write().unwrap().strand(&[42, 43]);
    {
        let inner = index.read().unwrap();
        assert!(!inner.graph.contains(42) && inner.exact.contains(42));
        assert!(inner.stray.contains(&42) && inner.stray.contains(&43));
    }
    assert_eq!(
        index.backlog_len().unwrap(),
        0,
        "strays are not built again"
    );
    assert_eq!(index.len().unwrap(), 300);
    let hit = index.search(&vectors[42], 1, |_| true).unwrap();
    assert_eq!(hit[0].0, 42);
    assert!((hit[0].1 - 1.0).abs() < 1e-5, "{hit:?}");
    // A filter applies to strays; a removed stray is gone; a rewritten one is ordinary.
    assert_ne!(index.search(&vectors[42], 1, |k| k != 42).unwrap()[0].0, 42);
    index.apply(&[(43, None)]).unwrap();
    assert_ne!(index.search(&vectors[43], 1, |_| true).unwrap()[0].0, 43);
    let strays = index.read().unwrap().stray.len();
    assert!(strays <= before + 1 && !index.read().unwrap().stray.contains(&43));
    // Saved without it in the graph: the next open takes it as backlog and builds it.
    index.save().unwrap();
    drop(index);
    let (index, opened) = VectorIndex::open(&path, dims).unwrap();
    assert_eq!(opened, Opened::Loaded);
    assert_eq!(index.backlog_len().unwrap(), strays);
    assert_eq!(index.search(&vectors[42], 1, |_| true).unwrap()[0].0, 42);
    index.finish_graph().unwrap();
    assert_eq!(index.backlog_len().unwrap(), 0);
    assert_eq!(index.search(&vectors[42], 1, |_| true).unwrap()[0].0, 42);
    assert_eq!(index.len().unwrap(), 299);
}

#[test]
fn a_few_keys_waiting_at_open_are_scanned_without_copying_the_graph_until_a_write() {
    assert!(!backlog::builds_at_open(0, 0));
    assert!(backlog::builds_at_open(300, 1_000));
    assert!(!backlog::builds_at_open(255, 1_000));
    assert!(!backlog::builds_at_open(999, 1_000_000));
    assert!(backlog::builds_at_open(1_000, 1_000_000));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v.usearch");
    let dims = 16;
    let vectors: Vec<Vec<f32>> = (0..400).map(|i| unit(i, dims)).collect();
    let (index, _) = VectorIndex::open(&path, dims).unwrap();
    index.apply(&keyed(&vectors[..390])).unwrap();
    index.finish_graph().unwrap();
    index.apply(&keyed(&vectors)[390..]).unwrap();
    index.write().unwrap().strand(&[5]);
    index.save().unwrap();
    drop(index);
    let (index, _) = VectorIndex::open(&path, dims).unwrap();
    let index = std::sync::Arc::new(index);
    index.start_building();
    // Past the builder's quiet period: nothing was built and the graph is still the file's view.
    std::thread::sleep(std::time::Duration::from_millis(600));
    let waiting = index.backlog_len().unwrap();
    assert!(waiting >= 1, "the stray waits");
    {
        let inner = index.read().unwrap();
        assert!(inner.viewed, "the graph was copied for {waiting} keys");
        let read_from_file = inner.pending.iter().filter(|&&k| !inner.exact.in_memory(k));
        assert_eq!(
            read_from_file.count(),
            0,
            "the scanned keys are held in memory"
        );
    }
    assert_eq!(index.search(&vectors[5], 1, |_| true).unwrap()[0].0, 5);
    // A write copies the graph anyway; the builder then takes the rest.
    index.apply(&keyed(&vectors)[..1]).unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while index.backlog_len().unwrap() > 0 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(index.backlog_len().unwrap(), 0, "the builder did not run");
    assert_eq!(index.search(&vectors[5], 1, |_| true).unwrap()[0].0, 5);
}

#[test]
fn a_new_graph_takes_the_configured_degree_and_a_saved_one_keeps_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v.usearch");
    let degree = |index: &VectorIndex| index.read().unwrap().graph.connectivity();
    let (index, _) = VectorIndex::open_with_degree(&path, 16, 8).unwrap();
    assert_eq!(degree(&index), 8);
    let vectors: Vec<Vec<f32>> = (0..300).map(|i| unit(i, 16)).collect();
    index.apply(&keyed(&vectors)).unwrap();
    index.finish_graph().unwrap();
    index.save().unwrap();
    drop(index);
    let (back, opened) = VectorIndex::open_with_degree(&path, 16, 24).unwrap();
    assert_eq!(opened, Opened::Loaded);
    assert_eq!(degree(&back), 8);
    assert_eq!(back.search(&vectors[42], 1, |_| true).unwrap()[0].0, 42);
    let other = dir.path().join("w.usearch");
    assert_eq!(
        degree(&VectorIndex::open_with_degree(&other, 16, 0).unwrap().0),
        2
    );
    assert_eq!(degree(&VectorIndex::open(&other, 16).unwrap().0), 32);
}

#[test]
fn verified_files_reopen_on_their_seal_until_either_changes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v.usearch");
    let dims = 16;
    let vectors = saved(&path, dims);
    let open = |expect_sealed: bool| {
        let (index, opened) = VectorIndex::open(&path, dims).unwrap();
        assert_eq!(opened, Opened::Loaded);
        assert_eq!(index.read().unwrap().sealed, expect_sealed);
        assert_eq!(index.len().unwrap(), 299);
        for i in [0usize, 9, 299] {
            assert_eq!(
                index.search(&vectors[i], 1, |_| true).unwrap()[0].0,
                i as u64
            );
        }
        assert!(index.similarities(&vectors[3], &[3]).unwrap().is_empty());
        index
    };
    // Just written: too new to seal, so every open verifies.
    open(false);
    assert!(!seal::path_for(&path).exists());
    std::thread::sleep(seal::MARGIN + std::time::Duration::from_millis(30));
    // The first open verifies and seals, the next ones read neither file.
    open(false);
    assert!(seal::path_for(&path).exists());
    let sealed = open(true);
    let hits = sealed.search(&vectors[42], 5, |_| true).unwrap();
    drop(sealed);
    // A save (new files) or any write to a file: verified again.
    let table = exact_path(&path);
    let mut bytes = std::fs::read(&table).unwrap();
    let n = bytes.len();
    bytes[n - 3] ^= 0x10;
    std::fs::write(&table, &bytes).unwrap();
    assert_damaged(&path, dims, "checksum");
    // Rebuilt and settled, then the same answers from the seal again.
    let _ = std::fs::remove_file(&path);
    let _ = std::fs::remove_file(&table);
    saved(&path, dims);
    std::thread::sleep(seal::MARGIN + std::time::Duration::from_millis(30));
    open(false);
    let again = open(true);
    assert_eq!(again.search(&vectors[42], 5, |_| true).unwrap(), hits);
    // A seal whose keys are not the table's is not trusted: the files are verified (and
    // sealed again), nothing is rebuilt.
    drop(again);
    let stamp = |p: &Path| seal::Stamp::of(p).unwrap();
    let (g, t) = (stamp(&path), stamp(&table));
    std::fs::remove_file(seal::path_for(&path)).unwrap();
    assert!(seal::write(&path, g, t, &[1, 2, 3]).unwrap());
    std::thread::sleep(seal::MARGIN + std::time::Duration::from_millis(30));
    open(false);
    open(true);
}

#[test]
fn a_backlog_held_in_memory_at_open_leaves_the_seal_whole() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v.usearch");
    let dims = 16;
    let vectors: Vec<Vec<f32>> = (0..2_000).map(|i| unit(i, dims)).collect();
    {
        let (index, _) = VectorIndex::open(&path, dims).unwrap();
        index.apply(&keyed(&vectors[..1_700])).unwrap();
        index.finish_graph().unwrap();
        // A batch large enough to wait in the backlog, then cut below the size opening
        // builds at once: opening copies those few vectors into memory instead.
        let later: Vec<(u64, Option<&[f32]>)> = keyed(&vectors).split_off(1_700);
        index.apply(&later).unwrap();
        let gone: Vec<(u64, Option<&[f32]>)> = (1_900..2_000u64).map(|k| (k, None)).collect();
        index.apply(&gone).unwrap();
        assert_eq!(index.backlog_len().unwrap(), 200);
        index.save().unwrap();
    }
    std::thread::sleep(seal::MARGIN + std::time::Duration::from_millis(30));
    let open = || {
        let (index, opened) = VectorIndex::open(&path, dims).unwrap();
        assert_eq!(opened, Opened::Loaded);
        assert_eq!(index.len().unwrap(), 1_900);
        for i in [5usize, 1_750, 1_899] {
            assert_eq!(
                index.search(&vectors[i], 1, |_| true).unwrap()[0].0,
                i as u64
            );
        }
        let inner = index.read().unwrap();
        (inner.sealed, inner.pending.len())
    };
    // 200 waiting, and any node the graph left unreachable (scanned with them).
    let (sealed, waiting) = open();
    assert!(!sealed && (200..256).contains(&waiting), "{waiting}");
    assert_eq!(open(), (true, waiting));
}
