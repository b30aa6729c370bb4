// Package dataset reads image datasets as they are distributed, one element
// at a time, and holds the label spaces vcr works with.
//
// Readers (all streaming: opening a dataset lists its elements, one
// directory walk or one pass over a labels file, and Load decodes one
// element on demand; decoded images are never held):
//
//   - "imagefolder": torchvision's ImageFolder layout, one sub-folder per
//     class, or a flat folder of images without labels.
//   - "imagenet-val": the ILSVRC-2012 validation folder with either the
//     devkit's ILSVRC2012_validation_ground_truth.txt or Kaggle's
//     LOC_val_solution.csv.
//   - "cifar10", "cifar100": the binary batches of CIFAR-10 and CIFAR-100
//     (Krizhevsky, 2009, "Learning Multiple Layers of Features from Tiny
//     Images"), read record by record.
//   - "list": a CSV with a path column and an optional label column.
//
// Open picks the reader from a Spec ("auto" detects the layout).
//
// Label spaces: LabelSpace maps class names such as WordNet IDs to indices
// (ReadSynsets reads LOC_synset_mapping.txt and similar lists); ImageNet16
// maps ImageNet-1k indices to Geirhos et al.'s 16 entry-level categories; IsCar
// lists the car classes of the ICSE 2022 requirements study. These are facts
// about label spaces; package task builds the tasks on them (how model
// outputs and dataset labels map to a task's classes, and the ground-truth
// rule human experiments and model evaluation share).
//
// ImageNet-1k indices are, throughout vcr, positions in the list of the 1000
// ILSVRC-2012 WordNet IDs sorted ascending (0 = n01440764 tench,
// 999 = n15075141 toilet tissue), the order torchvision, Caffe and Keras
// models use. The devkit's ILSVRC2012_IDs follow a different order; see
// OpenImageNetVal.
package dataset
