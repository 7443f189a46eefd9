//! The fuzz targets' short form (`monapi::fuzz`; the long one is libFuzzer's, `make -f
//! mk/fuzz.mk fuzz-run`): each target run over its seeds (`fuzz/seeds/`) and over seeded
//! mutations of them (bytes flipped, cut short, spliced), so that every suite run feeds every
//! decoder a few thousand malformed inputs. An error is fine; a panic fails the test.

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

/// The seeds of `target`.
fn seeds(target: &str) -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz/seeds")
        .join(target);
    let mut seeds: Vec<Vec<u8>> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| std::fs::read(entry.unwrap().path()).unwrap())
        .collect();
    assert!(!seeds.is_empty(), "no seed in {}", dir.display());
    seeds.sort();
    seeds
}

/// A mutation of one of `seeds`: some bytes replaced, then maybe cut short or doubled.
fn mutated(seeds: Vec<Vec<u8>>) -> impl Strategy<Value = Vec<u8>> {
    let count = seeds.len();
    (
        0..count,
        prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..8),
        any::<prop::sample::Index>(),
        0..3u8,
    )
        .prop_map(move |(which, flips, cut, how)| {
            let mut bytes = seeds[which].clone();
            if !bytes.is_empty() {
                for (at, byte) in flips {
                    let at = at.index(bytes.len());
                    bytes[at] = byte;
                }
            }
            match how {
                0 => bytes.truncate(cut.index(bytes.len() + 1)),
                1 => {
                    let tail = bytes[cut.index(bytes.len() + 1)..].to_vec();
                    bytes.extend(tail);
                }
                _ => {}
            }
            bytes
        })
}

/// Runs `target` over every seed, then over `cases` mutations drawn from a fixed seed (printed
/// when a case fails, with the input).
fn run(target: &str, cases: u32, body: impl Fn(&[u8])) {
    let seeds = seeds(target);
    for seed in &seeds {
        body(seed);
    }
    let seed = [7u8; 32];
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    let mut runner = TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &seed));
    runner
        .run(&mutated(seeds), |input| {
            body(&input);
            Ok(())
        })
        .unwrap_or_else(|e| panic!("target {target} (rng seed {seed:?}): {e}"));
}

#[test]
fn answers_of_mutated_seeds_never_panic() {
    run("answers", 2000, monapi::fuzz::answers);
}

#[test]
fn tables_of_mutated_seeds_never_panic() {
    run("tables", 2000, monapi::fuzz::tables);
}

#[test]
fn answers_arriving_in_pieces_of_mutated_seeds_never_panic_and_equal_the_whole() {
    run("arriving", 2000, monapi::fuzz::arriving);
}

#[test]
fn store_files_of_mutated_seeds_never_panic() {
    let root: PathBuf = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fuzz-store");
    let _ = std::fs::remove_dir_all(&root);
    run("store", 300, |data| monapi::fuzz::store(&root, data));
}
