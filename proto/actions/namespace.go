package actions

// Names of the namespace actions. Each takes a NamespaceRequest.
const (
	// CreateNamespace creates the namespace Namespace with Properties and
	// answers one NamespaceInfo.
	CreateNamespace = "create_namespace"
	// ListNamespaces lists the namespaces below Parent ("" the top level)
	// as a JSON array of dotted names, split over results of at most
	// about 1 MiB: a reader concatenates the arrays in order.
	ListNamespaces = "list_namespaces"
	// DropNamespace drops the empty namespace Namespace and answers one
	// DropResult.
	DropNamespace = "drop_namespace"
)

// NamespaceRequest is the body of the namespace actions: create_namespace
// takes Namespace and Properties, drop_namespace Namespace only and
// list_namespaces Parent only. It is one type because the server reads
// all three with it and names the keys an action does not take.
type NamespaceRequest struct {
	// Namespace is dotted, "db" or "db.sub".
	Namespace  string            `json:"namespace,omitempty"`
	Parent     string            `json:"parent,omitempty"`
	Properties map[string]string `json:"properties,omitempty"`
}

// NamespaceInfo is the answer of create_namespace.
type NamespaceInfo struct {
	Namespace string `json:"namespace"`
}
