// The same operator with controller-runtime (Go), for the line count only: not built here.
package controllers

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	demov1 "example.com/greeting/api/v1"
)

type GreetingReconciler struct {
	client.Client
}

func (r *GreetingReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var greeting demov1.Greeting
	if err := r.Get(ctx, req.NamespacedName, &greeting); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	for i := 1; i <= greeting.Spec.Copies; i++ {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%d", req.Name, i), Namespace: req.Namespace}}
		if _, err := controllerutil.CreateOrUpdate(ctx, r.Client, cm, func() error {
			cm.Data = map[string]string{"message": greeting.Spec.Message}
			return controllerutil.SetControllerReference(&greeting, cm, r.Scheme())
		}); err != nil {
			return ctrl.Result{}, err
		}
	}
	var configMaps corev1.ConfigMapList
	if err := r.List(ctx, &configMaps, client.InNamespace(req.Namespace)); err != nil {
		return ctrl.Result{}, err
	}
	for i := range configMaps.Items {
		cm := &configMaps.Items[i]
		n, err := strconv.Atoi(strings.TrimPrefix(cm.Name, req.Name+"-"))
		if metav1.IsControlledBy(cm, &greeting) && err == nil && n > greeting.Spec.Copies {
			if err := r.Delete(ctx, cm); client.IgnoreNotFound(err) != nil {
				return ctrl.Result{}, err
			}
		}
	}
	greeting.Status.ConfigMaps = greeting.Spec.Copies
	return ctrl.Result{}, r.Status().Update(ctx, &greeting)
}

func (r *GreetingReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).For(&demov1.Greeting{}).Owns(&corev1.ConfigMap{}).Complete(r)
}
