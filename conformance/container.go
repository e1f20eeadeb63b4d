package conformance

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// launch is how the harness runs one container: its arguments and environment, with
// the files of its volumes written under a directory of the Pod's.
type launch struct {
	args []string
	env  []string
}

// resolveContainer prepares c of pod to run: its environment as a kubelet gives it (the
// fields of the downward API the suite uses), and its Secret and ConfigMap volumes
// written as files under dir. The harness has no mount namespace per Pod, so a variable
// naming a path under a volume's mount path names the file under dir instead. A Secret or
// ConfigMap that does not exist yet is an error to retry, as a kubelet waits for it.
func resolveContainer(ctx context.Context, client kubernetes.Interface, pod *corev1.Pod, c corev1.Container, dir string) (launch, error) {
	mounts := map[string]string{} // mount path -> directory holding the volume's files
	for _, m := range c.VolumeMounts {
		vdir := filepath.Join(dir, m.Name)
		if err := writeVolume(ctx, client, pod, m.Name, vdir); err != nil {
			return launch{}, err
		}
		mounts[strings.TrimSuffix(m.MountPath, "/")] = vdir
	}
	l := launch{args: append(append([]string{}, c.Command...), c.Args...)}
	for _, e := range c.Env {
		v := e.Value
		if e.ValueFrom != nil {
			f := e.ValueFrom.FieldRef
			if f == nil {
				return launch{}, fmt.Errorf("container %s: env %s: only fieldRef sources are supported", c.Name, e.Name)
			}
			switch f.FieldPath {
			case "metadata.name":
				v = pod.Name
			case "metadata.namespace":
				v = pod.Namespace
			case "status.podIP":
				v = pod.Status.PodIP
			case "spec.nodeName":
				v = pod.Spec.NodeName
			default:
				return launch{}, fmt.Errorf("container %s: env %s: field %s is not supported", c.Name, e.Name, f.FieldPath)
			}
		}
		for mp, vdir := range mounts {
			if rest, ok := strings.CutPrefix(v, mp); ok && (rest == "" || rest[0] == '/') {
				v = vdir + rest
			}
		}
		l.env = append(l.env, e.Name+"="+v)
	}
	return l, nil
}

// writeVolume writes the files of the Pod's volume named name into dir: a Secret's or a
// ConfigMap's keys, or only its items under their paths when it lists items.
func writeVolume(ctx context.Context, client kubernetes.Interface, pod *corev1.Pod, name, dir string) error {
	var vol *corev1.Volume
	for i := range pod.Spec.Volumes {
		if pod.Spec.Volumes[i].Name == name {
			vol = &pod.Spec.Volumes[i]
		}
	}
	if vol == nil {
		return fmt.Errorf("volume %s is not in the Pod", name)
	}
	var data map[string][]byte
	var items []corev1.KeyToPath
	switch {
	case vol.Secret != nil:
		s, err := client.CoreV1().Secrets(pod.Namespace).Get(ctx, vol.Secret.SecretName, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("volume %s: %w", name, err)
		}
		data, items = s.Data, vol.Secret.Items
	case vol.ConfigMap != nil:
		cm, err := client.CoreV1().ConfigMaps(pod.Namespace).Get(ctx, vol.ConfigMap.Name, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("volume %s: %w", name, err)
		}
		data, items = map[string][]byte{}, vol.ConfigMap.Items
		for k, v := range cm.Data {
			data[k] = []byte(v)
		}
		for k, v := range cm.BinaryData {
			data[k] = v
		}
	default:
		return fmt.Errorf("volume %s: only Secret and ConfigMap volumes are supported", name)
	}
	if len(items) == 0 {
		for k := range data {
			items = append(items, corev1.KeyToPath{Key: k, Path: k})
		}
	}
	for _, it := range items {
		b, ok := data[it.Key]
		if !ok {
			return fmt.Errorf("volume %s: no key %s", name, it.Key)
		}
		path := filepath.Join(dir, filepath.Clean("/"+it.Path))
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return err
		}
		if err := os.WriteFile(path, b, 0o600); err != nil {
			return err
		}
	}
	return nil
}
