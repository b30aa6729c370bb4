package model

import "github.com/vcr-bench/vcr/task"

// The task concept (label spaces and the mapping of model outputs and
// dataset labels to a task's classes) lives in package task. These names
// remain for callers not yet moved to it.

// Mapping is task.Mapping.
//
// Deprecated: use task.Mapping.
type Mapping = task.Mapping

// ErrOutsideTask is task.ErrOutsideTask.
//
// Deprecated: use task.ErrOutsideTask.
var ErrOutsideTask = task.ErrOutsideTask

// LabelToTask is task.Truth.
//
// Deprecated: use task.Truth.
func LabelToTask(m Mapping, index int, name string) (int, error) { return task.Truth(m, index, name) }
