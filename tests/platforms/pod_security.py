"""Which Pod Security Standards levels admit a pod, and which grader mode its container is in
(a test helper, not a test module).

The level rules follow Kubernetes' own statement of them (kubernetes/website,
content/en/docs/concepts/security/pod-security-standards.md, the "Baseline" and "Restricted"
tables, as kubernetes/pod-security-admission `policy/check_*.go` enforces them); only the
controls a grading Job can touch are written here: privileged, host namespaces, capabilities,
hostPath, seccomp, AppArmor, procMount (baseline); allowPrivilegeEscalation, runAsNonRoot,
runAsUser, seccomp, capabilities, volume types (restricted). A container's field overrides the
pod's (the `securityContext` rules of the Kubernetes API).
"""

from __future__ import annotations

from typing import Any

BASELINE_CAPABILITIES = {"AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL",
                         "MKNOD", "NET_BIND_SERVICE", "SETFCAP", "SETGID", "SETPCAP", "SETUID",
                         "SYS_CHROOT"}
RESTRICTED_VOLUMES = {"configMap", "csi", "downwardAPI", "emptyDir", "ephemeral",
                      "persistentVolumeClaim", "projected", "secret"}
LEVELS = ("privileged", "baseline", "restricted")  # most permissive first


def _field(pod: dict[str, Any], container: dict[str, Any], name: str) -> Any:
    own = (container.get("securityContext") or {}).get(name)
    return own if own is not None else (pod.get("securityContext") or {}).get(name)


def violations(pod: dict[str, Any], level: str) -> list[str]:
    """What in the pod spec `level` refuses (empty: admitted)."""
    if level == "privileged":
        return []
    found: list[str] = []
    containers = [*pod.get("containers", []), *pod.get("initContainers", [])]
    for key in ("hostNetwork", "hostPID", "hostIPC"):
        if pod.get(key):
            found.append(key)
    if any("hostPath" in volume for volume in pod.get("volumes", [])):
        found.append("hostPath volume")
    for container in containers:
        context = container.get("securityContext") or {}
        name = container.get("name", "?")
        if context.get("privileged"):
            found.append(f"{name}: privileged")
        added = set((context.get("capabilities") or {}).get("add") or [])
        if added - BASELINE_CAPABILITIES:
            found.append(f"{name}: capabilities {sorted(added - BASELINE_CAPABILITIES)}")
        seccomp = (_field(pod, container, "seccompProfile") or {}).get("type")
        if seccomp == "Unconfined":
            found.append(f"{name}: seccomp Unconfined")
        if (_field(pod, container, "appArmorProfile") or {}).get("type") == "Unconfined":
            found.append(f"{name}: AppArmor Unconfined")
        if context.get("procMount") not in (None, "Default"):
            found.append(f"{name}: procMount")
        if level == "restricted":
            if context.get("allowPrivilegeEscalation") is not False:
                found.append(f"{name}: allowPrivilegeEscalation not false")
            if _field(pod, container, "runAsNonRoot") is not True:
                found.append(f"{name}: runAsNonRoot not true")
            if _field(pod, container, "runAsUser") == 0:
                found.append(f"{name}: runAsUser 0")
            if seccomp not in ("RuntimeDefault", "Localhost"):
                found.append(f"{name}: seccomp not RuntimeDefault or Localhost")
            capabilities = context.get("capabilities") or {}
            if "ALL" not in (capabilities.get("drop") or []):
                found.append(f"{name}: capabilities not dropping ALL")
            if set(capabilities.get("add") or []) - {"NET_BIND_SERVICE"}:
                found.append(f"{name}: capabilities added")
    if level == "restricted":
        for volume in pod.get("volumes", []):
            kinds = set(volume) - {"name"}
            if kinds - RESTRICTED_VOLUMES:
                found.append(f"volume {volume.get('name')}: {sorted(kinds)}")
    return found


def strictest_level(pod: dict[str, Any]) -> str:
    """The strictest level that admits the pod."""
    return [level for level in LEVELS if not violations(pod, level)][-1]


def grader_mode(pod: dict[str, Any], container: dict[str, Any]) -> str:
    """The machine the grader meets in this container, as tests/sandbox/modes.py names them.

    The container runtime's default seccomp profile (RuntimeDefault, Docker's) refuses
    unshare(CLONE_NEWUSER) without CAP_SYS_ADMIN, and its default AppArmor profile refuses mount:
    with either applied, no user namespace jail. Root keeps SETUID unless capabilities drop it."""
    context = container.get("securityContext") or {}
    confined = (_field(pod, container, "seccompProfile") or {}).get("type") != "Unconfined" or \
        (_field(pod, container, "appArmorProfile") or {}).get("type") != "Unconfined"
    root = _field(pod, container, "runAsUser") in (None, 0)
    dropped = set((context.get("capabilities") or {}).get("drop") or [])
    can_setuid = root and not ({"ALL", "SETUID"} & dropped)
    if root and not confined:
        return "root-no-sys-admin"
    if root:
        return "container" if can_setuid else "unprivileged-no-userns"
    return "unprivileged-no-userns" if confined else "unprivileged"
