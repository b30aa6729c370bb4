// Package task defines what a classifier is scored on: a label space (the
// task's classes) and the mapping of a model's outputs and of a dataset's
// ground-truth labels into it. The built-in tasks are the model's own
// classes (identity), ImageNet-1k, Geirhos et al.'s 16 entry-level
// categories (imagenet16), the ICSE 2022 study's car / not car (car),
// CIFAR-10 and CIFAR-100; a user mapping file gives any other.
//
// It is the one home of these rules: vcr eval scores model results with
// Truth and a Mapping, and the human experiments (package experiment) take
// their stimuli's ground truth from the same Truth, so humans and models
// are scored against the same classes.
package task
