"""Rename, delete and clean up run folders and run groups from the Runs list (mixed into RunsPanel).

A deleted run or group moves to the runs folder's .trash (deleted by hand to free the space), after a question
that says how many runs and how much disk; a live run is never deleted. A rename writes the run's run.json (its
display name; the id stays) or renames the group's folder and group.json (the members keep their ids). Cleaning
up a finished run of ours removes checkpoints/last (keep only best) or the optimizer state, on a worker thread.
"""

from __future__ import annotations

from PySide6.QtWidgets import QInputDialog, QMessageBox

from explorer.core.runs.reading import OURS
from explorer.ui.runs.disk import delete_optimizer_state, format_size, keep_only_best, trash_run
from explorer.ui.runs.names import set_display_name
from explorer.ui.runs.run_cells import FINISHED
from explorer.ui.runs.selection import RunSelection
from explorer.ui.shell.tasks import run_in_thread

__all__ = ["RunFolderActions"]


class RunFolderActions:
    """Needs ``self.model`` (RunsModel), ``selected_ids``, ``selected_groups``, ``_selected_states``, ``runs_dir``,
    ``reload_groups``, ``select_group``, ``_forget``, ``_update_buttons`` and the ``message`` / ``renamed`` signals
    (RunsPanel has them)."""

    def rename_group(self, name: str) -> bool:
        """Ask for a new group name; renames .groups/<name> and its group.json (members keep their ids)."""
        from explorer.core.studies.groups import GroupError, rename_group

        new, ok = QInputDialog.getText(self, "Rename group", f"New name for group {name} (letters, digits, . _ -):",
                                       text=name)
        if not ok or not new.strip() or new.strip() == name:
            return False
        try:
            rename_group(self.runs_dir(), name, new)
        except (GroupError, OSError) as exc:
            QMessageBox.warning(self, "Cannot rename group", str(exc))
            return False
        self.reload_groups()
        self.select_group(new.strip())
        return True

    def delete_group(self, name: str) -> bool:
        """After a confirmation, move the group's member runs and its group folder to .trash."""
        from explorer.core.studies.groups import GroupError, trash_group_folder

        row = self.model.group_row(name)
        if row is None or self.runs_dir() is None:
            return False
        members = [s for s in row.states if s is not None]
        if any(s.is_live for s in members):
            QMessageBox.information(self, "Group is active", f"Stop or cancel the live runs of {name} first.")
            return False
        size = sum(self.model.sizes.get(s.run_id, 0) for s in members)
        answer = QMessageBox.question(
            self, "Delete group", f"Delete group {name}: its group file and {len(members)} member run(s) "
            f"({format_size(size) or 'size unknown'})?\n\nThe folders move to .trash in the runs folder (delete it "
            "by hand to free the space).",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, QMessageBox.StandardButton.No)
        if answer != QMessageBox.StandardButton.Yes:
            return False
        failed = []
        for s in members:
            if s.path is None:
                continue
            try:
                trash_run(s.path)
            except OSError as exc:
                failed.append(f"{s.run_id}: {exc}")
                continue
            self._forget(s.run_id)
        if failed:   # the group file stays, so what is left stays grouped
            QMessageBox.warning(self, "Cannot delete", "Some runs could not be moved:\n" + "\n".join(failed))
        else:
            try:
                trash_group_folder(self.runs_dir(), name)
            except (GroupError, OSError) as exc:
                QMessageBox.warning(self, "Cannot delete", str(exc))
        self.reload_groups()
        self.message.emit(f"Deleted group {name} ({len(members) - len(failed)} run(s) moved to .trash)")
        self._update_buttons()
        return True

    def rename_selected(self) -> bool:
        groups = self.selected_groups()
        if groups and not self.selected_ids():
            return self.rename_group(groups[0]) if len(groups) == 1 else False
        states = self._selected_states()
        if len(states) != 1 or states[0].path is None:
            return False
        s = states[0]
        current = self.model.stored_names.get(s.run_id, "") or self.model.names.get(s.run_id, "")
        name, ok = QInputDialog.getText(self, "Rename run", f"Name for {s.run_id} (empty: the automatic name):",
                                        text=current)
        if not ok:
            return False
        try:
            set_display_name(s.path, name)
        except OSError as exc:
            QMessageBox.warning(self, "Cannot rename", f"Cannot write {s.path / 'run.json'}: {exc}")
            return False
        if name.strip():
            self.model.stored_names[s.run_id] = name.strip()
        else:
            self.model.stored_names.pop(s.run_id, None)
        self.model.update_names()
        self.renamed.emit(s.run_id)
        return True

    def delete_selected(self) -> bool:
        groups = self.selected_groups()
        if groups and not self.selected_ids():
            return self.delete_group(groups[0]) if len(groups) == 1 else False
        states = [s for s in self._selected_states() if s.path is not None]
        if not states:
            return False
        if any(s.is_live for s in states):
            QMessageBox.information(self, "Run is active", "Stop or cancel a live run before deleting it.")
            return False
        answer = QMessageBox.question(
            self, "Delete runs", RunSelection(states).delete_question(self.model.sizes),
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, QMessageBox.StandardButton.No)
        if answer != QMessageBox.StandardButton.Yes:
            return False
        for s in states:
            try:
                trash_run(s.path)
            except OSError as exc:
                QMessageBox.warning(self, "Cannot delete", f"Cannot move {s.path} to the trash: {exc}")
                continue
            self._forget(s.run_id)
        self._update_buttons()
        return True

    def keep_only_best_selected(self) -> bool:
        return self._clean_up("Keep only the best checkpoint", keep_only_best,
                              "Removes checkpoints/last (the run can no longer be resumed); checkpoints/best stays.")

    def delete_optimizer_state_selected(self) -> bool:
        return self._clean_up("Delete optimizer state", delete_optimizer_state,
                              "Removes training_state.pt (optimizer, scheduler and random states) from the "
                              "checkpoints; they stay usable as models but the run can no longer be resumed.")

    def _clean_up(self, title: str, fn, what: str) -> bool:
        states = self._selected_states()
        if len(states) != 1 or states[0].path is None or states[0].status not in FINISHED or states[0].kind != OURS:
            return False
        s = states[0]
        size = format_size(self.model.sizes.get(s.run_id))
        if QMessageBox.question(self, title, f"{s.run_id} ({size or 'size unknown'}): {what}\n\nGo ahead?",
                                QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                                QMessageBox.StandardButton.No) != QMessageBox.StandardButton.Yes:
            return False

        def done(sizes) -> None:
            before, after = sizes
            self.model.set_size(s.run_id, after)
            self.message.emit(f"{title}: {s.run_id} {format_size(before)} -> {format_size(after)}")

        run_in_thread(fn, s.path, on_done=done, owner=self,
                      on_error=lambda msg, _tb: QMessageBox.warning(self, title, f"{s.path}: {msg}"))
        return True
