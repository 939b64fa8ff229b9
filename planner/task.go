package planner

import "github.com/iceflight/iceflight/iceberg/scantask"

// Task is one slice of a data file with the deletes that apply to it: the
// unit the planner produces (package scantask's, under this package's
// name). Package engine turns a plan's tasks into tickets.
type Task = scantask.Task

// DeleteFile is a delete file that applies to a Task.
type DeleteFile = scantask.DeleteFile

// PartitionConstant is an identity-partition value a Task's rows share.
type PartitionConstant = scantask.PartitionConstant
