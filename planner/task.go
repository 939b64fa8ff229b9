package planner

import iceflightv1 "github.com/iceflight/iceflight/proto/iceflight/v1"

// Task is one slice of a data file with the deletes that apply to it: the
// unit the planner produces and the reader consumes. It is the ticket's
// wire message under this package's name, as arrow-go's flight package
// names its generated types, so a plan becomes tickets without a copy and
// a ticket's tasks are read as they arrive.
type Task = iceflightv1.Task

// DeleteFile is a delete file that applies to a Task.
type DeleteFile = iceflightv1.DeleteFile

// PartitionConstant is an identity-partition value a Task's rows share.
type PartitionConstant = iceflightv1.PartitionConstant
