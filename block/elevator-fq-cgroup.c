// SPDX-License-Identifier: GPL-2.0
/*
 * efq cgroup glue: the "efq" blkcg policy.
 *
 * Per cgroup (blkcg_policy_data) efq keeps the settings an administrator
 * writes: a default weight and class, and a table of per-device rules that
 * override them.  They live with the cgroup, so they survive a scheduler
 * switch and apply to devices that appear later.
 *
 * Per (cgroup, device) (blkg_policy_data) efq keeps a group.  The blkcg
 * core creates one for every blkg of a device running an efq scheduler;
 * the engine links a group into the device's hierarchy only when the
 * cgroup first sends a request there, and unlinks it when the cgroup goes
 * offline.  Requests of a dead cgroup (late writeback) go to the nearest
 * live ancestor.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/blkdev.h>
#include <linux/kdev_t.h>
#include <linux/kstrtox.h>
#include <linux/string.h>
#include <linux/cgroup.h>
#include <linux/seq_file.h>
#include <linux/math64.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#ifdef CONFIG_GROUP_IOSCHED_IO_WEIGHT
#include <linux/notifier.h>
#endif
#include <linux/elevator-fq.h>

#include "elevator.h"
#include "blk-cgroup.h"

/*
 * A group as blkcg policy data; the engine only sees the group.  Without
 * CONFIG_BLK_CGROUP the block layer's struct blkg_policy_data is empty.
 */
struct efq_group_pd {
	struct blkg_policy_data pd;
	struct efq_group group;
	struct rcu_head rcu;
};

/**
 * efq_group_alloc() - allocate a zeroed group
 * @gfp: allocation flags
 * @node: NUMA node
 *
 * Return: the group, or NULL.  Free it with efq_group_free().
 */
struct efq_group *efq_group_alloc(gfp_t gfp, int node)
{
	struct efq_group_pd *gpd;

	gpd = kzalloc_node(sizeof(*gpd), gfp, node);
	return gpd ? &gpd->group : NULL;
}
EXPORT_SYMBOL_GPL(efq_group_alloc);

/**
 * efq_group_free() - free a group allocated by efq_group_alloc()
 * @iog: the group, whose last reference is gone
 */
void efq_group_free(struct efq_group *iog)
{
	/*
	 * After a grace period: a statistics file's reader may hold the
	 * policy data (efq_prfill_stat()).
	 */
	kfree_rcu(container_of(iog, struct efq_group_pd, group), rcu);
}
EXPORT_SYMBOL_GPL(efq_group_free);

/*
 * Kconfig selects GROUP_IOSCHED whenever BLK_CGROUP is on; the out-of-tree
 * build defines it.  Without this check a build that missed it would give
 * a kernel with cgroups but no io.efq.* files, silently.
 */
#if IS_ENABLED(CONFIG_BLK_CGROUP) && !IS_ENABLED(CONFIG_GROUP_IOSCHED)
#error "BLK_CGROUP is on but GROUP_IOSCHED (the efq blkcg policy) is off"
#endif

#ifdef CONFIG_GROUP_IOSCHED

/**
 * struct efq_dev_rule - a per-device weight and class of one cgroup
 * @node: link in efq_cgroup.rules or efq_cgroup.io_rules
 * @dev: whole-disk device number
 * @weight: weight on that device (in io.weight's units in io_rules)
 * @ioprio_class: class on that device (unused in io_rules)
 */
struct efq_dev_rule {
	struct list_head node;
	dev_t dev;
	unsigned int weight;
	unsigned short ioprio_class;
};

/**
 * struct efq_cgroup - efq settings of one cgroup
 * @cpd: blkcg policy data
 * @lock: protects the fields below
 * @weight: default weight on every device, as written to io.efq.weight or
 *	blkio.weight; 0 while never written (or handed back to io.weight)
 * @io_weight: the io.weight default efq follows (io.efq.io_weight), in
 *	io.weight's units
 * @ioprio_class: default class on every device
 * @rules: per-device weights and classes written to efq's own files,
 *	newest first
 * @io_rules: per-device io.weight lines efq follows, in io.weight's units
 *
 * The weight of the cgroup's group on a device is the first of: its rule,
 * @weight, its io_rule, @io_weight.  What an administrator writes to efq's
 * files wins over what efq follows of io.weight.
 */
struct efq_cgroup {
	struct blkcg_policy_data cpd;
	spinlock_t lock;	/* settings vs. group creation (pd_init) */
	unsigned int weight;
	unsigned int io_weight;
	unsigned short ioprio_class;
	struct list_head rules;
	struct list_head io_rules;
};

static struct blkcg_policy efq_blkcg_policy;

static inline struct efq_cgroup *cpd_to_ecg(struct blkcg_policy_data *cpd)
{
	return cpd ? container_of(cpd, struct efq_cgroup, cpd) : NULL;
}

static inline struct efq_cgroup *blkcg_to_ecg(struct blkcg *blkcg)
{
	return cpd_to_ecg(blkcg_to_cpd(blkcg, &efq_blkcg_policy));
}

static inline struct efq_group *pd_to_group(struct blkg_policy_data *pd)
{
	return pd ? &container_of(pd, struct efq_group_pd, pd)->group : NULL;
}

static inline struct efq_group *blkg_to_group(struct blkcg_gq *blkg)
{
	return pd_to_group(blkg_to_pd(blkg, &efq_blkcg_policy));
}

static inline dev_t efq_blkg_dev(struct blkcg_gq *blkg)
{
	return blkg->q->disk ? disk_devt(blkg->q->disk) : 0;
}

/* --- request to group --------------------------------------------------- */

/* Link @blkg's group and every unlinked ancestor, top-down. */
static void efq_link_chain(struct efq_data *efqd, struct blkcg_gq *blkg)
{
	struct efq_group *iog = blkg_to_group(blkg);

	while (!iog->linked) {
		struct blkcg_gq *top = blkg;
		struct efq_group *parent;

		/* find the highest ancestor not linked yet */
		for (;;) {
			parent = top->parent->parent ?
				 blkg_to_group(top->parent) : efqd->root_group;
			if (parent->linked || parent == efqd->root_group)
				break;
			top = top->parent;
		}
		efq_group_link(efqd, blkg_to_group(top), parent);
	}
}

/**
 * efq_group_of_blkg() - the group that serves requests of @blkg
 * @efqd: the device
 * @blkg: the blkg of the request, or NULL
 *
 * Flat mode, a NULL @blkg, the root blkg and blkgs without efq data map to
 * the root group.  A dead cgroup's requests go to its nearest live
 * ancestor.  The group is linked into the hierarchy on first use; this
 * never allocates.
 *
 * Return: the group; valid while efqd->lock is held.
 */
struct efq_group *efq_group_of_blkg(struct efq_data *efqd,
				    struct blkcg_gq *blkg)
{
	struct efq_group *iog;

	lockdep_assert_held(&efqd->lock);
	if (!efqd->hierarchical || !blkg)
		return efqd->root_group;
	for (; blkg && blkg->parent; blkg = blkg->parent) {
		iog = blkg_to_group(blkg);
		if (iog && iog->online)
			break;
	}
	if (!blkg || !blkg->parent)
		return efqd->root_group;
	efq_link_chain(efqd, blkg);
	return blkg_to_group(blkg);
}
EXPORT_SYMBOL_GPL(efq_group_of_blkg);

/**
 * efq_group_of_current() - the group of the submitting task
 * @efqd: the device
 *
 * Return: the group of the current task's cgroup on this device, or the
 * root group (flat mode, or no blkg yet).
 */
struct efq_group *efq_group_of_current(struct efq_data *efqd)
{
	struct efq_group *iog = efqd->root_group;
	struct blkcg_gq *blkg;

	lockdep_assert_held(&efqd->lock);
	if (!efqd->hierarchical)
		return iog;
	rcu_read_lock();
	blkg = blkg_lookup(css_to_blkcg(task_css(current, io_cgrp_id)),
			   efqd->queue);
	if (blkg)
		iog = efq_group_of_blkg(efqd, blkg);
	rcu_read_unlock();
	return iog;
}
EXPORT_SYMBOL_GPL(efq_group_of_current);

/**
 * efq_group_of_bio() - the group that serves @bio
 * @efqd: the device
 * @bio: the bio; one to be issued as root goes to the root group
 *
 * Return: the group.
 */
struct efq_group *efq_group_of_bio(struct efq_data *efqd, struct bio *bio)
{
	if (!bio || bio_issue_as_root_blkg(bio))
		return efqd->root_group;
	return efq_group_of_blkg(efqd, bio->bi_blkg);
}
EXPORT_SYMBOL_GPL(efq_group_of_bio);

/**
 * efq_group_of_rq() - the group that serves @rq
 * @efqd: the device
 * @rq: the request; one without a bio goes to the root group
 *
 * Return: the group.
 */
struct efq_group *efq_group_of_rq(struct efq_data *efqd, struct request *rq)
{
	return efq_group_of_bio(efqd, rq->bio);
}
EXPORT_SYMBOL_GPL(efq_group_of_rq);

/**
 * efq_group_path() - the cgroup path of a group, for debugging output
 * @efqd: the group's device, whose lock is held
 * @iog: the group
 * @buf: where to write the path
 * @len: size of @buf
 *
 * An offline group shows as "(offline)": its cgroup is gone, and the group
 * can outlive its blkg (a queue or a child still holds it), so pd->blkg
 * may point to freed memory.  An online group's blkg is alive: it goes
 * offline (efq_pd_offline(), under the device lock) before it is freed.
 * Does not sleep.
 */
void efq_group_path(struct efq_data *efqd, struct efq_group *iog, char *buf,
		    size_t len)
{
	struct blkcg_gq *blkg;

	lockdep_assert_held(&efqd->lock);
	if (iog == efqd->root_group) {
		strscpy(buf, "/", len);
		return;
	}
	if (!iog->online) {
		strscpy(buf, "(offline)", len);
		return;
	}
	blkg = pd_to_blkg(&container_of(iog, struct efq_group_pd, group)->pd);
	if (cgroup_path(blkg->blkcg->css.cgroup, buf, len) < 0)
		strscpy(buf, "?", len);
}
EXPORT_SYMBOL_GPL(efq_group_path);

/* --- settings ----------------------------------------------------------- */

/* The rule of @dev in @list (ecg->rules or ecg->io_rules), or NULL. */
static struct efq_dev_rule *efq_find_rule(struct efq_cgroup *ecg,
					  struct list_head *list, dev_t dev)
{
	struct efq_dev_rule *rule;

	lockdep_assert_held(&ecg->lock);
	list_for_each_entry(rule, list, node)
		if (rule->dev == dev)
			return rule;
	return NULL;
}

/* The default weight of @ecg's groups, its io_rules aside. */
static unsigned int efq_default_weight(struct efq_cgroup *ecg)
{
	lockdep_assert_held(&ecg->lock);
	return ecg->weight ?: ecg->io_weight * EFQ_IO_WEIGHT_SCALE;
}

/* The weight and class a group of @ecg gets on device @dev. */
static void efq_effective(struct efq_cgroup *ecg, dev_t dev,
			  unsigned int *weight, unsigned short *ioclass)
{
	struct efq_dev_rule *rule;
	unsigned long flags;

	spin_lock_irqsave(&ecg->lock, flags);
	rule = efq_find_rule(ecg, &ecg->rules, dev);
	*ioclass = rule ? rule->ioprio_class : ecg->ioprio_class;
	if (rule) {
		*weight = rule->weight;
	} else if (ecg->weight) {
		*weight = ecg->weight;
	} else {
		rule = efq_find_rule(ecg, &ecg->io_rules, dev);
		*weight = rule ? rule->weight * EFQ_IO_WEIGHT_SCALE :
			  efq_default_weight(ecg);
	}
	spin_unlock_irqrestore(&ecg->lock, flags);
}

/* Give @iog, the group of @blkg, the settings @ecg has now for its device. */
static void efq_update_group(struct efq_cgroup *ecg, struct blkcg_gq *blkg,
			     struct efq_group *iog)
{
	unsigned short ioclass;
	unsigned int weight;

	lockdep_assert_held(&blkg->blkcg->lock);
	efq_effective(ecg, efq_blkg_dev(blkg), &weight, &ioclass);
	if (iog->entity.new_weight != weight)
		efq_group_set_weight(iog, weight);
	if (iog->entity.new_class != ioclass)
		efq_group_set_ioprio_class(iog, ioclass);
}

/*
 * Push the settings of @blkcg to its groups on every device, or on @dev
 * only if @dev is not 0.  A blkg not yet on blkcg->blkg_list gets them in
 * efq_pd_online(), which runs under blkcg->lock once it is there.
 */
static void efq_apply(struct blkcg *blkcg, struct efq_cgroup *ecg, dev_t dev)
{
	struct blkcg_gq *blkg;

	spin_lock_irq(&blkcg->lock);
	hlist_for_each_entry(blkg, &blkcg->blkg_list, blkcg_node) {
		struct efq_group *iog = blkg_to_group(blkg);

		if (!iog || (dev && efq_blkg_dev(blkg) != dev))
			continue;
		efq_update_group(ecg, blkg, iog);
	}
	spin_unlock_irq(&blkcg->lock);
}

/*
 * Is @weight in @min..@max, the range of @file?  Says why not
 * (ratelimited: writers may be delegated).
 */
static bool efq_weight_in(const char *file, unsigned int weight,
			  unsigned int min, unsigned int max)
{
	if (weight >= min && weight <= max)
		return true;
	pr_warn_ratelimited("efq: %s: weight %u out of range %u..%u\n", file,
			    weight, min, max);
	return false;
}

/* Is @weight in V10's range, that of io.efq.weight and io.efq.policy? */
static bool efq_valid_weight(unsigned int weight)
{
	return efq_weight_in("io.efq.weight", weight, EFQ_V10_WEIGHT_MIN,
			     EFQ_V10_WEIGHT_MAX);
}

/* Is @ioclass a class a group may have?  Says why not. */
static bool efq_valid_class(unsigned int ioclass)
{
	if (ioclass >= IOPRIO_CLASS_RT && ioclass <= IOPRIO_CLASS_IDLE)
		return true;
	pr_warn_ratelimited("efq: ioprio class %u is not 1 (rt), 2 (be) or 3 (idle)\n",
			    ioclass);
	return false;
}

/*
 * Set the cgroup's written default weight (@weight in efq's units), or with
 * @weight 0 forget it: the default follows io.weight again.  With @follow,
 * set the io.weight default efq follows instead (@weight in io.weight's
 * units).  Ranges are the caller's to check.
 */
static int efq_store_weight(struct blkcg *blkcg, unsigned int weight,
			    bool follow)
{
	struct efq_cgroup *ecg = blkcg_to_ecg(blkcg);

	if (!ecg)
		return -ENODEV;
	spin_lock_irq(&ecg->lock);
	if (follow)
		ecg->io_weight = weight;
	else
		ecg->weight = weight;
	spin_unlock_irq(&ecg->lock);
	efq_apply(blkcg, ecg, 0);
	return 0;
}

/**
 * efq_cgroup_set_weight() - set a cgroup's default weight
 * @blkcg: the cgroup
 * @weight: EFQ_V10_WEIGHT_MIN .. EFQ_V10_WEIGHT_MAX, as io.efq.weight takes
 *
 * Applies to the cgroup's groups on every device without a rule of its
 * own, from their next (re)queue, whatever io.weight says.
 *
 * Return: 0, -EINVAL for a weight out of range, -ENODEV if efq is not
 * registered.
 */
int efq_cgroup_set_weight(struct blkcg *blkcg, unsigned int weight)
{
	if (!efq_valid_weight(weight))
		return -EINVAL;
	return efq_store_weight(blkcg, weight, false);
}
EXPORT_SYMBOL_GPL(efq_cgroup_set_weight);

/**
 * efq_cgroup_set_ioprio_class() - set a cgroup's default class
 * @blkcg: the cgroup
 * @ioclass: 1 (RT), 2 (BE) or 3 (IDLE)
 *
 * Return: 0, -EINVAL for another class, -ENODEV if efq is not registered.
 */
int efq_cgroup_set_ioprio_class(struct blkcg *blkcg, unsigned int ioclass)
{
	struct efq_cgroup *ecg = blkcg_to_ecg(blkcg);

	if (!efq_valid_class(ioclass))
		return -EINVAL;
	if (!ecg)
		return -ENODEV;
	spin_lock_irq(&ecg->lock);
	ecg->ioprio_class = ioclass;
	spin_unlock_irq(&ecg->lock);
	efq_apply(blkcg, ecg, 0);
	return 0;
}
EXPORT_SYMBOL_GPL(efq_cgroup_set_ioprio_class);

/*
 * Is @dev the number of a whole disk?  Every disk has a root blkg on
 * blkcg_root's list from its allocation to its release (blkcg_init_disk(),
 * blkcg_exit_disk()), and a partition has none.  Nothing is opened: a
 * cgroup write, maybe a delegated user's, must not run the driver's open
 * as blkdev_get_by_dev() does (blkcg_conf_open_bdev() uses
 * blkdev_get_no_open(), which 6.1 does not export to modules).
 */
static bool efq_disk_exists(dev_t dev)
{
	struct blkcg_gq *blkg;
	bool found = false;

	if (!dev)
		return false;
	spin_lock_irq(&blkcg_root.lock);
	hlist_for_each_entry(blkg, &blkcg_root.blkg_list, blkcg_node) {
		if (efq_blkg_dev(blkg) == dev) {
			found = true;
			break;
		}
	}
	spin_unlock_irq(&blkcg_root.lock);
	return found;
}

/*
 * Set, or with @weight 0 remove, the rule of @blkcg for disk @dev: one of
 * its own rules, or with @follow one of the io.weight lines it follows
 * (@weight in io.weight's units, no class).  With @ioclass
 * IOPRIO_CLASS_NONE a rule keeps its class, and a new one takes the
 * cgroup's, as read under the same hold of the lock as the update.
 * Removing needs no disk: the rules of a disk that went away can go too.
 */
static int efq_update_rule(struct blkcg *blkcg, bool follow, dev_t dev,
			   unsigned int weight, unsigned short ioclass)
{
	struct efq_cgroup *ecg = blkcg_to_ecg(blkcg);
	struct efq_dev_rule *rule, *new = NULL;
	struct list_head *list;

	if (!ecg)
		return -ENODEV;
	if (weight) {
		if (!efq_disk_exists(dev)) {
			pr_warn_ratelimited("efq: %u:%u is not a whole disk\n",
					    MAJOR(dev), MINOR(dev));
			return -ENODEV;
		}
		new = kzalloc(sizeof(*new), GFP_KERNEL);
		if (!new)
			return -ENOMEM;
	}

	spin_lock_irq(&ecg->lock);
	list = follow ? &ecg->io_rules : &ecg->rules;
	rule = efq_find_rule(ecg, list, dev);
	if (!weight) {
		if (rule)
			list_del(&rule->node);
	} else if (rule) {
		rule->weight = weight;
		if (ioclass != IOPRIO_CLASS_NONE)
			rule->ioprio_class = ioclass;
		rule = NULL;
	} else {
		new->dev = dev;
		new->weight = weight;
		new->ioprio_class = ioclass != IOPRIO_CLASS_NONE ?
				    ioclass : ecg->ioprio_class;
		list_add(&new->node, list);
		new = NULL;
	}
	spin_unlock_irq(&ecg->lock);
	kfree(rule);
	kfree(new);
	efq_apply(blkcg, ecg, dev);
	return 0;
}

/**
 * efq_cgroup_set_dev_policy() - set or remove a per-device rule
 * @blkcg: the cgroup
 * @dev: a whole disk; to remove a rule, any number
 * @weight: EFQ_V10_WEIGHT_MIN .. EFQ_V10_WEIGHT_MAX, or 0 to remove the rule
 * @ioclass: 1 (RT), 2 (BE) or 3 (IDLE); required even to remove
 *
 * Return: 0, -EINVAL for a bad weight or class, -ENODEV if @dev is not a
 * whole disk (when setting), -ENOMEM.
 */
int efq_cgroup_set_dev_policy(struct blkcg *blkcg, dev_t dev,
			      unsigned int weight, unsigned int ioclass)
{
	if ((weight && !efq_valid_weight(weight)) || !efq_valid_class(ioclass))
		return -EINVAL;
	return efq_update_rule(blkcg, false, dev, weight, ioclass);
}
EXPORT_SYMBOL_GPL(efq_cgroup_set_dev_policy);

/*
 * A decimal number as iocost's parser takes it: digits only (kstrtouint()
 * would take a leading '+').
 */
static int efq_parse_uint(const char *tok, unsigned int *val)
{
	if (*tok < '0' || *tok > '9')
		return -EINVAL;
	return kstrtouint(tok, 10, val);
}

/* Split "MAJ:MIN" into a device number. */
static int efq_parse_dev(const char *tok, dev_t *dev)
{
	unsigned int major, minor;
	char buf[24];
	char *colon;

	if (strscpy(buf, tok, sizeof(buf)) < 0)
		return -EINVAL;
	colon = strchr(buf, ':');
	if (!colon)
		return -EINVAL;
	*colon = '\0';
	if (efq_parse_uint(buf, &major) || efq_parse_uint(colon + 1, &minor))
		return -EINVAL;
	if (major >= (1U << (32 - MINORBITS)) || minor > MINORMASK)
		return -EINVAL;
	*dev = MKDEV(major, minor);
	return 0;
}

/* Split @buf in place into at most @max whitespace-separated tokens. */
static int efq_tokenize(char *buf, char **tok, int max)
{
	int n = 0;
	char *t;

	while ((t = strsep(&buf, " \t\n"))) {
		if (!*t)
			continue;
		if (n == max)
			return -EINVAL;
		tok[n++] = t;
	}
	return n;
}

/*
 * A "MAJ:MIN WEIGHT CLASS" line of @file, WEIGHT in @min..@max or 0 (remove
 * the device's rule).
 */
static int efq_write_policy(struct blkcg *blkcg, char *buf, const char *file,
			    unsigned int min, unsigned int max)
{
	unsigned int weight, ioclass;
	char *tok[3];
	dev_t dev;

	if (efq_tokenize(buf, tok, 3) != 3 || efq_parse_dev(tok[0], &dev) ||
	    efq_parse_uint(tok[1], &weight) ||
	    efq_parse_uint(tok[2], &ioclass)) {
		pr_warn_ratelimited("efq: %s must be \"MAJ:MIN WEIGHT CLASS\"\n",
				    file);
		return -EINVAL;
	}
	if ((weight && !efq_weight_in(file, weight, min, max)) ||
	    !efq_valid_class(ioclass))
		return -EINVAL;
	return efq_update_rule(blkcg, false, dev, weight, ioclass);
}

/**
 * efq_cgroup_write_policy() - parse an io.efq.policy write
 * @blkcg: the cgroup
 * @buf: "MAJ:MIN WEIGHT CLASS"; weight 0 removes the device's rule, else
 *	it is in V10's range 100..1000
 *
 * Return: 0 or a negative errno; a malformed line is -EINVAL.
 */
int efq_cgroup_write_policy(struct blkcg *blkcg, char *buf)
{
	return efq_write_policy(blkcg, buf, "io.efq.policy", EFQ_V10_WEIGHT_MIN,
				EFQ_V10_WEIGHT_MAX);
}
EXPORT_SYMBOL_GPL(efq_cgroup_write_policy);

/**
 * efq_cgroup_write_blkio_policy() - parse a blkio.policy write (cgroup v1)
 * @blkcg: the cgroup
 * @buf: "MAJ:MIN WEIGHT CLASS"; weight 0 removes the device's rule, else
 *	it is in CFQ's range 10..1000, as blkio.weight_device takes it
 *
 * Return: 0 or a negative errno; a malformed line is -EINVAL.
 */
int efq_cgroup_write_blkio_policy(struct blkcg *blkcg, char *buf)
{
	return efq_write_policy(blkcg, buf, "blkio.policy",
				EFQ_BLKIO_WEIGHT_MIN, EFQ_BLKIO_WEIGHT_MAX);
}
EXPORT_SYMBOL_GPL(efq_cgroup_write_blkio_policy);

/*
 * Parse a line of cgroup v2's weight grammar: "N" or "default N" (the
 * cgroup's default: *@per_dev false), "MAJ:MIN N" or "MAJ:MIN default"
 * (*@per_dev true, the disk in *@dev).  A value that is not a number is
 * left to the caller: *@word points to it, and *@weight is 0.
 *
 * Return: 0, or -EINVAL for a line of another shape.
 */
static int efq_parse_weight_line(char *buf, bool *per_dev, dev_t *dev,
				 unsigned int *weight, const char **word)
{
	char *tok[2];
	int n;

	*per_dev = false;
	*dev = 0;
	*weight = 0;
	*word = NULL;
	n = efq_tokenize(buf, tok, 2);
	if (n == 1)
		return efq_parse_uint(tok[0], weight) ? -EINVAL : 0;
	if (n != 2)
		return -EINVAL;
	if (strcmp(tok[0], "default")) {
		if (efq_parse_dev(tok[0], dev))
			return -EINVAL;
		*per_dev = true;
	}
	if (efq_parse_uint(tok[1], weight)) {
		*weight = 0;
		*word = tok[1];
	}
	return 0;
}

/**
 * efq_cgroup_write_weight() - parse an io.efq.weight write
 * @blkcg: the cgroup
 * @buf: "N" or "default N" (the cgroup's weight), "default io.weight"
 *	(forget it: follow io.weight again), "MAJ:MIN N" (a rule for one
 *	disk, keeping the rule's class or the cgroup's) or "MAJ:MIN default"
 *	(remove the disk's rule); N in V10's range 100..1000
 *
 * Return: 0 or a negative errno; a malformed line is -EINVAL.
 */
int efq_cgroup_write_weight(struct blkcg *blkcg, char *buf)
{
	unsigned int weight;
	const char *word;
	bool per_dev;
	dev_t dev;

	if (efq_parse_weight_line(buf, &per_dev, &dev, &weight, &word))
		goto bad;
	if (!per_dev) {
		if (word && !strcmp(word, "io.weight"))
			return efq_store_weight(blkcg, 0, false);
		if (word)
			goto bad;
		return efq_cgroup_set_weight(blkcg, weight);
	}
	/* "MAJ:MIN 0" is a removal in io.efq.policy, malformed here */
	if ((word && strcmp(word, "default")) || (!word && !weight))
		goto bad;
	if (!word && !efq_valid_weight(weight))
		return -EINVAL;
	return efq_update_rule(blkcg, false, dev, weight, IOPRIO_CLASS_NONE);
bad:
	pr_warn_ratelimited("efq: io.efq.weight takes \"N\", \"default N\", \"default io.weight\", \"MAJ:MIN N\" or \"MAJ:MIN default\"\n");
	return -EINVAL;
}
EXPORT_SYMBOL_GPL(efq_cgroup_write_weight);

/**
 * efq_cgroup_write_io_weight() - parse an io.efq.io_weight write
 * @blkcg: the cgroup
 * @buf: a line of io.weight's grammar: "W" or "default W" (the default),
 *	"MAJ:MIN W" (one disk) or "MAJ:MIN default" (forget the disk's
 *	line); W in 1..10000
 *
 * What efq follows of the cgroup's io.weight (efq-weightd copies it here;
 * a kernel without iocost has this file as io.weight itself).  Applied as
 * EFQ_IO_WEIGHT_SCALE times W wherever the administrator wrote no weight
 * of efq's own.
 *
 * Return: 0 or a negative errno; a malformed line is -EINVAL.
 */
int efq_cgroup_write_io_weight(struct blkcg *blkcg, char *buf)
{
	unsigned int weight;
	const char *word;
	bool per_dev;
	dev_t dev;

	if (efq_parse_weight_line(buf, &per_dev, &dev, &weight, &word) ||
	    (word && (!per_dev || strcmp(word, "default"))))
		goto bad;
	if (!word && !efq_weight_in("io.efq.io_weight", weight,
				    EFQ_IO_WEIGHT_MIN, EFQ_IO_WEIGHT_MAX))
		return -EINVAL;
	if (!per_dev)
		return efq_store_weight(blkcg, weight, true);
	return efq_update_rule(blkcg, true, dev, weight, IOPRIO_CLASS_NONE);
bad:
	pr_warn_ratelimited("efq: io.efq.io_weight takes \"W\", \"default W\", \"MAJ:MIN W\" or \"MAJ:MIN default\"\n");
	return -EINVAL;
}
EXPORT_SYMBOL_GPL(efq_cgroup_write_io_weight);

/**
 * efq_cgroup_write_blkio_weight() - parse a blkio.weight write (cgroup v1)
 * @blkcg: the cgroup
 * @buf: "N", N in CFQ's range 10..1000, in efq's units
 *
 * Return: 0 or a negative errno; a malformed line is -EINVAL.
 */
int efq_cgroup_write_blkio_weight(struct blkcg *blkcg, char *buf)
{
	unsigned int weight;
	char *tok[1];

	if (efq_tokenize(buf, tok, 1) != 1 || efq_parse_uint(tok[0], &weight)) {
		pr_warn_ratelimited("efq: blkio.weight takes a number\n");
		return -EINVAL;
	}
	if (!efq_weight_in("blkio.weight", weight, EFQ_BLKIO_WEIGHT_MIN,
			   EFQ_BLKIO_WEIGHT_MAX))
		return -EINVAL;
	return efq_store_weight(blkcg, weight, false);
}
EXPORT_SYMBOL_GPL(efq_cgroup_write_blkio_weight);

/**
 * efq_cgroup_write_blkio_weight_device() - parse a blkio.weight_device write
 * @blkcg: the cgroup
 * @buf: "MAJ:MIN N" (N in 10..1000; the rule keeps its class or takes the
 *	cgroup's) or "MAJ:MIN 0" (remove the disk's rule)
 *
 * Return: 0 or a negative errno; a malformed line is -EINVAL.
 */
int efq_cgroup_write_blkio_weight_device(struct blkcg *blkcg, char *buf)
{
	unsigned int weight;
	char *tok[2];
	dev_t dev;

	if (efq_tokenize(buf, tok, 2) != 2 || efq_parse_dev(tok[0], &dev) ||
	    efq_parse_uint(tok[1], &weight)) {
		pr_warn_ratelimited("efq: blkio.weight_device takes \"MAJ:MIN N\" (N 0 removes)\n");
		return -EINVAL;
	}
	if (weight && !efq_weight_in("blkio.weight_device", weight,
				     EFQ_BLKIO_WEIGHT_MIN,
				     EFQ_BLKIO_WEIGHT_MAX))
		return -EINVAL;
	return efq_update_rule(blkcg, false, dev, weight, IOPRIO_CLASS_NONE);
}
EXPORT_SYMBOL_GPL(efq_cgroup_write_blkio_weight_device);

/* --- cgroup files ------------------------------------------------------- */

/*
 * The cgroup v2 files, all named io.efq.*: "efq." keeps them clear of the
 * files other io policies own (io.weight is iocost's, io.bfq.* bfq's); a
 * clash would not fail registration but break cgroup creation.  The
 * cgroup v1 files (blkio.*) take the names CFQ had, free since 5.0.
 */

/*
 * io.efq.weight shows what was written to it, so that what it shows can be
 * written back to the same effect: the written default, or "default
 * io.weight" while the default follows io.weight (io.efq.io_weight shows
 * that), then each disk's written weight.
 */
static int efq_weight_show(struct seq_file *sf, void *v)
{
	struct efq_cgroup *ecg = blkcg_to_ecg(css_to_blkcg(seq_css(sf)));
	struct efq_dev_rule *rule;

	if (!ecg)
		return -ENODEV;
	spin_lock_irq(&ecg->lock);
	if (ecg->weight)
		seq_printf(sf, "default %u\n", ecg->weight);
	else
		seq_puts(sf, "default io.weight\n");
	list_for_each_entry(rule, &ecg->rules, node)
		seq_printf(sf, "%u:%u %u\n", MAJOR(rule->dev), MINOR(rule->dev),
			   rule->weight);
	spin_unlock_irq(&ecg->lock);
	return 0;
}

/* Run @parse on a written line; the write's return value. */
static ssize_t efq_write_line(struct kernfs_open_file *of, char *buf,
			      size_t nbytes,
			      int (*parse)(struct blkcg *blkcg, char *buf))
{
	int ret = parse(css_to_blkcg(of_css(of)), strstrip(buf));

	return ret ?: nbytes;
}

static ssize_t efq_weight_write(struct kernfs_open_file *of, char *buf,
				size_t nbytes, loff_t off)
{
	return efq_write_line(of, buf, nbytes, efq_cgroup_write_weight);
}

/* io.efq.io_weight: what efq follows of io.weight, in its units. */
static int efq_io_weight_show(struct seq_file *sf, void *v)
{
	struct efq_cgroup *ecg = blkcg_to_ecg(css_to_blkcg(seq_css(sf)));
	struct efq_dev_rule *rule;

	if (!ecg)
		return -ENODEV;
	spin_lock_irq(&ecg->lock);
	seq_printf(sf, "default %u\n", ecg->io_weight);
	list_for_each_entry(rule, &ecg->io_rules, node)
		seq_printf(sf, "%u:%u %u\n", MAJOR(rule->dev), MINOR(rule->dev),
			   rule->weight);
	spin_unlock_irq(&ecg->lock);
	return 0;
}

static ssize_t efq_io_weight_write(struct kernfs_open_file *of, char *buf,
				   size_t nbytes, loff_t off)
{
	return efq_write_line(of, buf, nbytes, efq_cgroup_write_io_weight);
}

/* blkio.weight: the default weight in force, as a bare number. */
static u64 efq_blkio_weight_read(struct cgroup_subsys_state *css,
				 struct cftype *cft)
{
	struct efq_cgroup *ecg = blkcg_to_ecg(css_to_blkcg(css));
	unsigned int weight;

	if (!ecg)
		return 0;
	spin_lock_irq(&ecg->lock);
	weight = efq_default_weight(ecg);
	spin_unlock_irq(&ecg->lock);
	return weight;
}

/*
 * blkio.weight and blkio.weight_device are in the root cgroup too, as
 * CFQ's were: container engines probe the mount's root for them.  The
 * root group has no weight of its own to set: a write there fails, but
 * one of what blkio.weight shows, the default, which changes nothing (a
 * restore of saved settings).
 */
static bool efq_blkio_root(struct kernfs_open_file *of, const char *file,
			   char *buf)
{
	unsigned int weight;
	char *tok[1];

	if (css_to_blkcg(of_css(of)) != &blkcg_root)
		return false;
	if (buf && efq_tokenize(buf, tok, 1) == 1 &&
	    !efq_parse_uint(tok[0], &weight) && weight == EFQ_WEIGHT_DEFAULT)
		return false;
	pr_warn_ratelimited("efq: %s: the root cgroup has no weight; set it in a child\n",
			    file);
	return true;
}

static ssize_t efq_blkio_weight_write(struct kernfs_open_file *of, char *buf,
				      size_t nbytes, loff_t off)
{
	if (efq_blkio_root(of, "blkio.weight", buf))
		return -EINVAL;
	if (css_to_blkcg(of_css(of)) == &blkcg_root)
		return nbytes;
	return efq_write_line(of, buf, nbytes, efq_cgroup_write_blkio_weight);
}

/* blkio.weight_device: the cgroup's per-disk weights, "MAJ:MIN N". */
static int efq_blkio_weight_device_show(struct seq_file *sf, void *v)
{
	struct efq_cgroup *ecg = blkcg_to_ecg(css_to_blkcg(seq_css(sf)));
	struct efq_dev_rule *rule;

	if (!ecg)
		return -ENODEV;
	spin_lock_irq(&ecg->lock);
	list_for_each_entry(rule, &ecg->rules, node)
		seq_printf(sf, "%u:%u %u\n", MAJOR(rule->dev), MINOR(rule->dev),
			   rule->weight);
	spin_unlock_irq(&ecg->lock);
	return 0;
}

static ssize_t efq_blkio_weight_device_write(struct kernfs_open_file *of,
					     char *buf, size_t nbytes,
					     loff_t off)
{
	if (efq_blkio_root(of, "blkio.weight_device", NULL))
		return -EINVAL;
	return efq_write_line(of, buf, nbytes,
			      efq_cgroup_write_blkio_weight_device);
}

static ssize_t efq_blkio_policy_write(struct kernfs_open_file *of, char *buf,
				      size_t nbytes, loff_t off)
{
	return efq_write_line(of, buf, nbytes, efq_cgroup_write_blkio_policy);
}

static u64 efq_class_read(struct cgroup_subsys_state *css, struct cftype *cft)
{
	struct efq_cgroup *ecg = blkcg_to_ecg(css_to_blkcg(css));

	return ecg ? ecg->ioprio_class : 0;
}

/*
 * Parsed as the cgroup core parses a write_u64 file (kstrtoull(), base 0,
 * one final newline), with the same errors, but never without a message:
 * the core refuses a value that is not a number silently.
 */
static ssize_t efq_class_write(struct kernfs_open_file *of, char *buf,
			       size_t nbytes, loff_t off)
{
	unsigned long long val;
	int ret;

	ret = kstrtoull(buf, 0, &val);
	if (ret) {
		pr_warn_ratelimited("efq: ioprio_class: %s: write 1 (rt), 2 (be) or 3 (idle)\n",
				    ret == -ERANGE ? "number too large" :
				    "not a number");
		return ret;
	}
	if (val > IOPRIO_CLASS_IDLE) {
		pr_warn_ratelimited("efq: ioprio class %llu is not 1 (rt), 2 (be) or 3 (idle)\n",
				    val);
		return -EINVAL;
	}
	ret = efq_cgroup_set_ioprio_class(css_to_blkcg(of_css(of)), val);
	return ret ?: nbytes;
}

static int efq_policy_show(struct seq_file *sf, void *v)
{
	struct efq_cgroup *ecg = blkcg_to_ecg(css_to_blkcg(seq_css(sf)));
	struct efq_dev_rule *rule;

	if (!ecg)
		return -ENODEV;
	spin_lock_irq(&ecg->lock);
	if (!list_empty(&ecg->rules))
		seq_puts(sf, "dev\tweight\tclass\n");
	list_for_each_entry(rule, &ecg->rules, node)
		seq_printf(sf, "%u:%u\t%u\t%u\n", MAJOR(rule->dev),
			   MINOR(rule->dev), rule->weight, rule->ioprio_class);
	spin_unlock_irq(&ecg->lock);
	return 0;
}

static ssize_t efq_policy_write(struct kernfs_open_file *of, char *buf,
				size_t nbytes, loff_t off)
{
	return efq_write_line(of, buf, nbytes, efq_cgroup_write_policy);
}

/* What a statistics file shows (cftype.private). */
enum efq_stat {
	EFQ_STAT_TIME,		/* disk time, ms */
	EFQ_STAT_SECTORS,	/* sectors dispatched */
	EFQ_STAT_QUEUE,		/* times the group became backlogged */
	EFQ_STAT_DEQUEUE,	/* times it stopped being backlogged */
};

/*
 * The group whose figures a blkg shows: the device's root group for the
 * root cgroup.  Called with the blkcg's or the queue's lock held and the
 * policy data present, so the policy is active on the queue and the
 * elevator that activated it is q->elevator (see efq_data_init()).
 */
static struct efq_group *efq_stat_group(struct blkg_policy_data *pd)
{
	struct blkcg_gq *blkg = pd_to_blkg(pd);
	struct efq_data *efqd;

	if (blkg->parent)
		return pd_to_group(pd);
	efqd = blkg->q->elevator->elevator_data;
	return efqd->root_group;
}

/* Read without the device lock: each figure is one aligned word. */
static u64 efq_stat_value(struct efq_group *iog, int which)
{
	const struct efq_entity *e = &iog->entity;

	switch (which) {
	case EFQ_STAT_TIME:
		return div_u64(READ_ONCE(e->total_time), NSEC_PER_MSEC);
	case EFQ_STAT_SECTORS:
		return READ_ONCE(e->total_sectors);
	case EFQ_STAT_QUEUE:
		return READ_ONCE(e->nr_enqueued);
	default:
		return READ_ONCE(e->nr_dequeued);
	}
}

/*
 * One device's line.  The core may call this under rcu_read_lock() alone
 * (7.x), while the scheduler's exit deactivates the policy and frees the
 * device's groups: the policy data itself stays readable until a grace
 * period passes (efq_group_free()), and with efq_blkg_print_lock() held,
 * a policy still on the queue with @pd still the blkg's means that the
 * device's scheduler, which the root cgroup's line reads, is still there.
 */
static u64 efq_prfill_stat(struct seq_file *sf, struct blkg_policy_data *pd,
			   int which)
{
	struct blkcg_gq *blkg = pd_to_blkg(pd);
	dev_t dev = efq_blkg_dev(blkg);

	if (!dev)
		return 0;
	efq_blkg_print_lock(blkg->q);
	if (efq_blkg_pd_current(blkg, &efq_blkcg_policy, pd))
		seq_printf(sf, "%u:%u %llu\n", MAJOR(dev), MINOR(dev),
			   efq_stat_value(efq_stat_group(pd), which));
	efq_blkg_print_unlock(blkg->q);
	return 0;
}

static int efq_stat_show(struct seq_file *sf, void *v)
{
	blkcg_print_blkgs(sf, css_to_blkcg(seq_css(sf)), efq_prfill_stat,
			  &efq_blkcg_policy, seq_cft(sf)->private, false);
	return 0;
}

/* efq's part of a device's line in io.stat. */
static void efq_pd_stat(struct blkg_policy_data *pd, struct seq_file *s)
{
	struct efq_group *iog = efq_stat_group(pd);

	seq_printf(s, " efq.disk_time=%llu efq.disk_sectors=%llu",
		   efq_stat_value(iog, EFQ_STAT_TIME),
		   efq_stat_value(iog, EFQ_STAT_SECTORS));
}

/*
 * The files both hierarchies have, each under its own name: io.efq.* on
 * cgroup v2, blkio.* on v1.
 */
#define EFQ_CLASS_FILE(fname)						\
	{								\
		.name = fname,						\
		.flags = CFTYPE_NOT_ON_ROOT,				\
		.read_u64 = efq_class_read,				\
		.write = efq_class_write,				\
	}

#define EFQ_POLICY_FILE(fname, write_fn)				\
	{								\
		.name = fname,						\
		.flags = CFTYPE_NOT_ON_ROOT,				\
		.max_write_len = 256,					\
		.seq_show = efq_policy_show,				\
		.write = write_fn,					\
	}

#define EFQ_STAT_FILE(fname, which)					\
	{								\
		.name = fname,						\
		.private = which,					\
		.seq_show = efq_stat_show,				\
	}

static struct cftype efq_files[] = {
	{
		.name = "efq.weight",
		.flags = CFTYPE_NOT_ON_ROOT,
		.seq_show = efq_weight_show,
		.write = efq_weight_write,
	},
	{
		.name = "efq.io_weight",
		.flags = CFTYPE_NOT_ON_ROOT,
		.seq_show = efq_io_weight_show,
		.write = efq_io_weight_write,
	},
#if !IS_ENABLED(CONFIG_BLK_CGROUP_IOCOST)
	/*
	 * With no iocost, io.weight is free: efq takes it, as CFQ did, and
	 * it is io.efq.io_weight under cgroup v2's own name.
	 */
	{
		.name = "weight",
		.flags = CFTYPE_NOT_ON_ROOT,
		.seq_show = efq_io_weight_show,
		.write = efq_io_weight_write,
	},
#endif
	EFQ_CLASS_FILE("efq.ioprio_class"),
	EFQ_POLICY_FILE("efq.policy", efq_policy_write),
	EFQ_STAT_FILE("efq.disk_time", EFQ_STAT_TIME),
	EFQ_STAT_FILE("efq.disk_sectors", EFQ_STAT_SECTORS),
#ifdef CONFIG_DEBUG_GROUP_IOSCHED
	EFQ_STAT_FILE("efq.disk_queue", EFQ_STAT_QUEUE),
	EFQ_STAT_FILE("efq.disk_dequeue", EFQ_STAT_DEQUEUE),
#endif
	{ }	/* terminate */
};

/* cgroup v1: CFQ's weight files, V10's others, all under blkio.* */
static struct cftype efq_legacy_files[] = {
	{
		.name = "weight",
		.read_u64 = efq_blkio_weight_read,
		.write = efq_blkio_weight_write,
	},
	{
		.name = "weight_device",
		.seq_show = efq_blkio_weight_device_show,
		.write = efq_blkio_weight_device_write,
	},
	EFQ_CLASS_FILE("ioprio_class"),
	EFQ_POLICY_FILE("policy", efq_blkio_policy_write),
	EFQ_STAT_FILE("disk_time", EFQ_STAT_TIME),
	EFQ_STAT_FILE("disk_sectors", EFQ_STAT_SECTORS),
#ifdef CONFIG_DEBUG_GROUP_IOSCHED
	EFQ_STAT_FILE("disk_queue", EFQ_STAT_QUEUE),
	EFQ_STAT_FILE("disk_dequeue", EFQ_STAT_DEQUEUE),
#endif
	{ }	/* terminate */
};

/* --- blkcg policy ------------------------------------------------------- */

/*
 * A cgroup's data starts with the default weight and class.  Set here, not
 * in a cpd_init_fn: 6.12 has no such hook (6.1 called it right after this).
 */
static struct blkcg_policy_data *efq_cpd_alloc(gfp_t gfp)
{
	struct efq_cgroup *ecg = kzalloc(sizeof(*ecg), gfp);

	if (!ecg)
		return NULL;
	spin_lock_init(&ecg->lock);
	INIT_LIST_HEAD(&ecg->rules);
	INIT_LIST_HEAD(&ecg->io_rules);
	ecg->io_weight = EFQ_IO_WEIGHT_DEFAULT;
	ecg->ioprio_class = IOPRIO_CLASS_BE;
	return &ecg->cpd;
}

static void efq_cpd_free(struct blkcg_policy_data *cpd)
{
	struct efq_cgroup *ecg = cpd_to_ecg(cpd);
	struct efq_dev_rule *rule, *next;

	list_for_each_entry_safe(rule, next, &ecg->rules, node)
		kfree(rule);
	list_for_each_entry_safe(rule, next, &ecg->io_rules, node)
		kfree(rule);
	kfree(ecg);
}

/**
 * efq_pd_alloc() - allocate the group of a new blkg
 * @q: the blkg's queue
 * @blkcg: the blkg's cgroup
 * @gfp: allocation flags
 *
 * The group is complete here, with the reference efq_pd_free() drops:
 * 6.1 frees policy data that never saw pd_init_fn (blkg_alloc()'s error
 * path, a blkg_conf_prep() that lost the race to create the blkg,
 * blkcg_activate_policy()'s unused preallocation), as bfq_pd_alloc()
 * knows.  It starts with the cgroup's settings of now; efq_pd_online()
 * refreshes them.  The policy's pd_alloc_fn is efq_pd_alloc_fn(), which
 * EFQ_DEFINE_PD_ALLOC() defines with the kernel's signature (6.1 passes the
 * queue, 6.12 the disk).
 *
 * Return: the policy data, or NULL.
 */
static struct blkg_policy_data *efq_pd_alloc(struct request_queue *q,
					     struct blkcg *blkcg, gfp_t gfp)
{
	struct efq_group *iog = efq_group_alloc(gfp, q->node);
	struct efq_cgroup *ecg = blkcg_to_ecg(blkcg);
	dev_t dev = q->disk ? disk_devt(q->disk) : 0;
	unsigned int weight = EFQ_WEIGHT_DEFAULT;
	unsigned short ioclass = IOPRIO_CLASS_BE;

	if (!iog)
		return NULL;
	if (ecg)
		efq_effective(ecg, dev, &weight, &ioclass);
	efq_group_init(iog, weight, ioclass);
	iog->dev = dev;
	return &container_of(iog, struct efq_group_pd, group)->pd;
}

EFQ_DEFINE_PD_ALLOC(efq_pd_alloc);

/**
 * efq_pd_online() - a new blkg is on its cgroup's blkg_list
 * @pd: its policy data
 *
 * Called under blkcg->lock once the blkg is on blkcg->blkg_list; a setting
 * written since efq_pd_alloc() was not applied by efq_apply(), which walks
 * that list under the same lock, so apply the settings of now.
 */
static void efq_pd_online(struct blkg_policy_data *pd)
{
	struct blkcg_gq *blkg = pd_to_blkg(pd);
	struct efq_cgroup *ecg = blkcg_to_ecg(blkg->blkcg);

	if (ecg)
		efq_update_group(ecg, blkg, pd_to_group(pd));
}

static void efq_pd_offline(struct blkg_policy_data *pd)
{
	struct efq_group *iog = pd_to_group(pd);
	struct efq_data *efqd = pd_to_blkg(pd)->q->elevator->elevator_data;
	unsigned long flags;

	spin_lock_irqsave(&efqd->lock, flags);
	efq_group_offline(efqd, iog);
	spin_unlock_irqrestore(&efqd->lock, flags);
}

/**
 * efq_pd_free() - drop the reference efq_pd_alloc() took
 * @pd: the policy data, initialised or not
 */
static void efq_pd_free(struct blkg_policy_data *pd)
{
	efq_put_group(pd_to_group(pd));
}

static struct blkcg_policy efq_blkcg_policy = {
	.dfl_cftypes	= efq_files,
	.legacy_cftypes	= efq_legacy_files,
	.cpd_alloc_fn	= efq_cpd_alloc,
	.cpd_free_fn	= efq_cpd_free,
	.pd_alloc_fn	= efq_pd_alloc_fn,
	.pd_online_fn	= efq_pd_online,
	.pd_offline_fn	= efq_pd_offline,
	.pd_free_fn	= efq_pd_free,
	.pd_stat_fn	= efq_pd_stat,
};

/**
 * efq_cgroup_activate() - enable the efq policy on a device
 * @efqd: the device
 *
 * Return: 0 or a negative errno.
 */
int efq_cgroup_activate(struct efq_data *efqd)
{
	return efq_blkcg_activate(efqd->queue, &efq_blkcg_policy);
}
EXPORT_SYMBOL_GPL(efq_cgroup_activate);

/**
 * efq_cgroup_deactivate() - disable the efq policy on a device
 * @efqd: the device
 *
 * Offlines and frees the device's groups; needed before the policy can be
 * unregistered, or a later cgroup removal would find stale policy data.
 */
void efq_cgroup_deactivate(struct efq_data *efqd)
{
	efq_blkcg_deactivate(efqd->queue, &efq_blkcg_policy);
}
EXPORT_SYMBOL_GPL(efq_cgroup_deactivate);

/* --- io.weight through iocost (patched kernels) ------------------------- */

#ifdef CONFIG_GROUP_IOSCHED_IO_WEIGHT
/*
 * With iocost built, io.weight is its file, and a patched kernel's iocost
 * says when a cgroup's default in it changes (ioc_weight_notifier_register(),
 * ioc_cgroup_dfl_weight(): the series' first patch).  efq follows it as a
 * write of io.efq.io_weight's default would: applied where no io.efq.weight
 * was written.  Per-device io.weight lines stay iocost's.
 *
 * The weight is read from iocost under efq_io_weight_mutex, not taken from
 * the notification: of two racing writes, or a write racing the first
 * reading of all cgroups, the last store then holds the value iocost has.
 */
static DEFINE_MUTEX(efq_io_weight_mutex);

/* Follow @blkcg's default io.weight as iocost has it now. */
static void efq_follow_io_weight(struct blkcg *blkcg)
{
	unsigned int weight = ioc_cgroup_dfl_weight(blkcg);

	lockdep_assert_held(&efq_io_weight_mutex);
	if (weight >= EFQ_IO_WEIGHT_MIN && weight <= EFQ_IO_WEIGHT_MAX)
		efq_store_weight(blkcg, weight, true);
}

/* iocost's notification: process context, none of iocost's locks held. */
static int efq_io_weight_notify(struct notifier_block *nb,
				unsigned long weight, void *blkcg)
{
	mutex_lock(&efq_io_weight_mutex);
	efq_follow_io_weight(blkcg);
	mutex_unlock(&efq_io_weight_mutex);
	return NOTIFY_OK;
}

static struct notifier_block efq_io_weight_nb = {
	.notifier_call = efq_io_weight_notify,
};

/*
 * Listen, then read the default of every cgroup there is (io.weight is not
 * on the root): a write from now on is notified after it changed the value,
 * so it waits for the mutex and stores what it reads after this walk.
 */
static int efq_io_weight_init(void)
{
	struct cgroup_subsys_state *pos;
	int ret;

	ret = ioc_weight_notifier_register(&efq_io_weight_nb);
	if (ret)
		return ret;
	mutex_lock(&efq_io_weight_mutex);
	rcu_read_lock();
	css_for_each_descendant_pre(pos, &blkcg_root.css) {
		if (pos == &blkcg_root.css || !css_tryget_online(pos))
			continue;
		efq_follow_io_weight(css_to_blkcg(pos));
		css_put(pos);
	}
	rcu_read_unlock();
	mutex_unlock(&efq_io_weight_mutex);
	return 0;
}

/* Waits for a notification that is running. */
static void efq_io_weight_exit(void)
{
	ioc_weight_notifier_unregister(&efq_io_weight_nb);
}
#else
/* No iocost (efq has io.weight itself), or a kernel without the notifier. */
static inline int efq_io_weight_init(void)
{
	return 0;
}

static inline void efq_io_weight_exit(void)
{
}
#endif /* CONFIG_GROUP_IOSCHED_IO_WEIGHT */

int efq_cgroup_init(void)
{
	int ret = blkcg_policy_register(&efq_blkcg_policy);

	if (ret)
		return ret;
	ret = efq_io_weight_init();
	if (ret)
		blkcg_policy_unregister(&efq_blkcg_policy);
	return ret;
}

void efq_cgroup_exit(void)
{
	efq_io_weight_exit();
	blkcg_policy_unregister(&efq_blkcg_policy);
}

#else /* !CONFIG_GROUP_IOSCHED */

/*
 * Without cgroups (a kernel without CONFIG_BLK_CGROUP) a device has one
 * group, the root group the engine makes: every request is its, and there
 * is no policy to register or activate.  The schedulers call the same
 * functions either way.
 */

struct efq_group *efq_group_of_blkg(struct efq_data *efqd,
				    struct blkcg_gq *blkg)
{
	lockdep_assert_held(&efqd->lock);
	return efqd->root_group;
}
EXPORT_SYMBOL_GPL(efq_group_of_blkg);

struct efq_group *efq_group_of_current(struct efq_data *efqd)
{
	lockdep_assert_held(&efqd->lock);
	return efqd->root_group;
}
EXPORT_SYMBOL_GPL(efq_group_of_current);

struct efq_group *efq_group_of_bio(struct efq_data *efqd, struct bio *bio)
{
	lockdep_assert_held(&efqd->lock);
	return efqd->root_group;
}
EXPORT_SYMBOL_GPL(efq_group_of_bio);

struct efq_group *efq_group_of_rq(struct efq_data *efqd, struct request *rq)
{
	lockdep_assert_held(&efqd->lock);
	return efqd->root_group;
}
EXPORT_SYMBOL_GPL(efq_group_of_rq);

void efq_group_path(struct efq_data *efqd, struct efq_group *iog, char *buf,
		    size_t len)
{
	strscpy(buf, "/", len);
}
EXPORT_SYMBOL_GPL(efq_group_path);

int efq_cgroup_activate(struct efq_data *efqd)
{
	return 0;
}
EXPORT_SYMBOL_GPL(efq_cgroup_activate);

void efq_cgroup_deactivate(struct efq_data *efqd)
{
}
EXPORT_SYMBOL_GPL(efq_cgroup_deactivate);

int efq_cgroup_init(void)
{
	return 0;
}

void efq_cgroup_exit(void)
{
}

#endif /* CONFIG_GROUP_IOSCHED */
