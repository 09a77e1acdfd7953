// The same operator with controller-runtime (Go), for the line count only: not built here.
// Kubebuilder generates the rest (DeepCopy methods, the CRD YAML from these markers, RBAC, main).
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	GroupVersion  = schema.GroupVersion{Group: "short.demo.svc.io", Version: "v1"}
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	AddToScheme   = SchemeBuilder.AddToScheme
)

type GreetingSpec struct {
	// +kubebuilder:validation:MinLength=1
	Message string `json:"message"`
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=5
	// +kubebuilder:default=1
	Copies int `json:"copies,omitempty"`
}

type GreetingStatus struct {
	ConfigMaps int `json:"configMaps,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
type Greeting struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              GreetingSpec   `json:"spec,omitempty"`
	Status            GreetingStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true
type GreetingList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Greeting `json:"items"`
}

func init() {
	SchemeBuilder.Register(&Greeting{}, &GreetingList{})
}
