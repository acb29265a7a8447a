//! VNN-COMP 2021's `verivital` instance list (data/verivital/verivital_instances.csv) as
//! `knn verify --instances` reads it: 60 instances whose `./specs/…` paths are relative to the
//! list's folder, the two convolutional networks imported from ONNX with their own
//! `(1, 28, 28)` input shape, and one instance verified (the max-pool network's first property,
//! which the verifier proves in a few seconds).

use std::path::{Path, PathBuf};
use std::time::Duration;

use knn::{Conclusion, read_instances};

fn verivital() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/verivital")
}

#[test]
fn the_instance_list_names_files_of_its_folder() {
    let instances = read_instances(&verivital().join("verivital_instances.csv")).unwrap();
    assert_eq!(instances.len(), 60);
    for instance in &instances {
        assert!(verivital().join(&instance.network).is_file(), "{}", instance.network);
        assert!(instance.property.starts_with("./specs/"), "{}", instance.property);
        assert!(verivital().join(&instance.property).is_file(), "{}", instance.property);
    }
    let networks = |name: &str| instances.iter().filter(|i| i.network == name).count();
    assert_eq!((networks("Convnet_avgpool.onnx"), networks("Convnet_maxpool.onnx")), (40, 20));
}

#[test]
fn an_instance_of_the_max_pool_network_verifies() {
    let instances = read_instances(&verivital().join("verivital_instances.csv")).unwrap();
    let instance = instances
        .iter()
        .find(|i| i.property == "./specs/maxpool_specs/prop_0_0.004.vnnlib")
        .expect("the max-pool network's property 0");
    // About 3 s on an idle core; the margin is for a busy machine.
    let report = instance.verify(&verivital(), Some(Duration::from_secs(120)), Some(1)).unwrap();
    assert!(matches!(report.conclusion, Conclusion::Holds { .. }), "{:?}", report.conclusion);
}
